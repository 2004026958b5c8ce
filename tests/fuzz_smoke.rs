//! The smoke run of every fuzz target (`fuzz/checks/mod.rs`) on stable: each seed of
//! `fuzz/seeds/<target>` and a fixed number of deterministic mutations of them (bytes flipped,
//! cut, repeated, spliced). The coverage-guided runs are `npm run fuzz` (cargo-fuzz on nightly).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "../fuzz/checks/mod.rs"]
mod checks;

/// Mutations per target (a few seconds in a debug build).
const MUTATIONS: usize = 400;

fn seeds(target: &str) -> Vec<Vec<u8>> {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("seeds missing at {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().is_some_and(|n| n != "LICENSE"))
        .collect();
    files.sort();
    let out: Vec<Vec<u8>> = files.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert!(!out.is_empty(), "no seeds for {target}");
    out
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn mutate(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut data = seeds[rng.below(seeds.len())].clone();
    for _ in 0..1 + rng.below(4) {
        let len = data.len();
        match rng.below(6) {
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => data.truncate(rng.below(len)),
            2 if len > 0 => {
                let i = rng.below(len);
                let b = data[i];
                data.splice(i..i, std::iter::repeat_n(b, 1 + rng.below(8)));
            }
            3 => {
                let other = &seeds[rng.below(seeds.len())];
                let at = rng.below(len + 1);
                let from = rng.below(other.len() + 1);
                let piece = other[from..other.len().min(from + 64)].to_vec();
                data.splice(at..at, piece);
            }
            4 if len > 0 => {
                let i = rng.below(len);
                data[i] = b"{}[]\",:0123456789eE-.\\ntf"[rng.below(25)];
            }
            _ => data.push(rng.next() as u8),
        }
    }
    data
}

fn smoke(target: &str, check: fn(&[u8])) {
    let seeds = seeds(target);
    for seed in &seeds {
        check(seed);
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ target.len() as u64);
    for _ in 0..MUTATIONS {
        check(&mutate(&mut rng, &seeds));
    }
}

#[test]
fn formats() {
    smoke("formats", checks::formats);
}

#[test]
fn pi_session() {
    smoke("pi_session", checks::pi_session);
}

#[test]
fn claude_code() {
    smoke("claude_code", checks::claude_code);
}

#[test]
fn encoding() {
    smoke("encoding", checks::encoding);
}

#[test]
#[cfg(not(target_arch = "wasm32"))]
fn exact_count() {
    smoke("exact_count", checks::exact_count);
}

#[test]
fn options() {
    smoke("options", checks::options);
}

#[test]
fn planner() {
    smoke("planner", checks::planner);
}
