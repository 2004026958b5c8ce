//! Fact retention: how many of the digest's facts a summary keeps, kind by kind, and which are
//! lost. It is what a compaction reports with its digest (`digest.retention`) and what the
//! command-line tool shows for a summary it wrote or found, so that a caller can log it or compact
//! again with instructions naming what was lost. Matching is the digest's
//! ([`Digest::missing_from`]).

use super::digest::Digest;

/// One kind of fact.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindRetention {
    /// The kind's name as JS sees it: `filesModified`, `filesRead`, `commands`, `errors`,
    /// `userRequests`, `pendingTasks`.
    pub kind: &'static str,
    /// Facts of this kind in the digest.
    pub total: usize,
    /// The facts the summary does not mention, in the digest's order.
    pub missing: Vec<String>,
}

/// The retention of every kind, in the order of [`KindRetention::kind`]'s list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Retention {
    /// One entry per kind.
    pub kinds: Vec<KindRetention>,
}

impl Retention {
    /// What `summary` keeps of `digest`.
    pub fn of(digest: &Digest, summary: &str) -> Retention {
        let missing = digest.missing_from(summary);
        let pairs: [(&'static str, &[String], Vec<String>); 6] = [
            (
                "filesModified",
                &digest.files_modified,
                missing.files_modified,
            ),
            ("filesRead", &digest.files_read, missing.files_read),
            ("commands", &digest.commands, missing.commands),
            ("errors", &digest.errors, missing.errors),
            ("userRequests", &digest.user_requests, missing.user_requests),
            ("pendingTasks", &digest.pending_tasks, missing.pending_tasks),
        ];
        Retention {
            kinds: pairs
                .into_iter()
                .map(|(kind, all, missing)| KindRetention {
                    kind,
                    total: all.len(),
                    missing,
                })
                .collect(),
        }
    }

    /// Facts in all.
    pub fn total(&self) -> usize {
        self.kinds.iter().map(|k| k.total).sum()
    }

    /// Facts the summary keeps.
    pub fn kept(&self) -> usize {
        self.kinds
            .iter()
            .map(|k| k.total.saturating_sub(k.missing.len()))
            .sum()
    }

    /// Kept over total, 1 when there is nothing to keep.
    pub fn recall(&self) -> f64 {
        let total = self.total();
        if total == 0 {
            1.0
        } else {
            self.kept() as f64 / total as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_what_is_kept_and_names_what_is_lost() {
        let d = Digest {
            files_modified: vec!["/app/src/auth.ts".into()],
            commands: vec!["npm test".into(), "cargo build".into()],
            ..Digest::default()
        };
        let r = Retention::of(&d, "Edited src/auth.ts and ran `npm test`.");
        assert_eq!((r.total(), r.kept()), (3, 2));
        let commands = r
            .kinds
            .iter()
            .find(|k| k.kind == "commands")
            .unwrap_or_else(|| unreachable!());
        assert_eq!(commands.missing, vec!["cargo build"]);
        assert!((r.recall() - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(Retention::of(&Digest::default(), "").recall(), 1.0);
    }
}
