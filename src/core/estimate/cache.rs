//! A bounded per-message cache of estimates, so that re-estimating a growing conversation does
//! not re-tokenize the messages it already priced (exact counting is the expensive part).

use std::hash::{Hash, Hasher};

use rustc_hash::{FxHashMap, FxHasher};
use serde_json::Value;

use super::{Estimate, Estimator, KindTokens};
use crate::core::message::{ImageSource, Message, Part};

/// Entries a cache holds by default.
pub const DEFAULT_CACHE_CAPACITY: usize = 4096;

/// The identity of a message's priced content: an FxHash over its role and parts (every field
/// that changes the price: text, tool names, ids, inputs, outputs, image sizes and detail) plus
/// the bytes of text hashed. Markers that do not change the price (`summary`, `pinned`,
/// `timestamp`, `original`) are left out. Two different messages share a key only on a 64-bit
/// hash collision of equal-length content.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MessageKey {
    pub hash: u64,
    pub bytes: usize,
}

/// The key of `message` (one pass over its content, no allocation).
pub fn message_key(message: &Message) -> MessageKey {
    let mut h = KeyHasher {
        inner: FxHasher::default(),
        bytes: 0,
    };
    (message.role as u8).hash(&mut h.inner);
    message.parts.len().hash(&mut h.inner);
    for part in &message.parts {
        h.part(part);
    }
    MessageKey {
        hash: h.inner.finish(),
        bytes: h.bytes,
    }
}

struct KeyHasher {
    inner: FxHasher,
    bytes: usize,
}

impl KeyHasher {
    fn str(&mut self, s: &str) {
        self.bytes = self.bytes.saturating_add(s.len());
        s.hash(&mut self.inner);
    }

    fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                1u8.hash(&mut self.inner);
                self.str(s);
            }
            None => 0u8.hash(&mut self.inner),
        }
    }

    fn part(&mut self, part: &Part) {
        match part {
            Part::Text { text } => {
                0u8.hash(&mut self.inner);
                self.str(text);
            }
            Part::Image {
                media_type,
                source,
                width,
                height,
                detail,
            } => {
                1u8.hash(&mut self.inner);
                self.opt_str(media_type.as_deref());
                self.source(source);
                width.hash(&mut self.inner);
                height.hash(&mut self.inner);
                self.opt_str(detail.as_deref());
            }
            Part::File {
                media_type,
                name,
                source,
                text,
            } => {
                2u8.hash(&mut self.inner);
                self.opt_str(media_type.as_deref());
                self.opt_str(name.as_deref());
                self.source(source);
                self.opt_str(text.as_deref());
            }
            Part::Reasoning { text, redacted } => {
                3u8.hash(&mut self.inner);
                redacted.hash(&mut self.inner);
                self.str(text);
            }
            Part::ToolCall { id, name, input } => {
                4u8.hash(&mut self.inner);
                self.str(id);
                self.str(name);
                self.value(input);
            }
            Part::ToolResult {
                id,
                name,
                output,
                is_error,
            } => {
                5u8.hash(&mut self.inner);
                self.str(id);
                self.opt_str(name.as_deref());
                is_error.hash(&mut self.inner);
                output.len().hash(&mut self.inner);
                for p in output {
                    self.part(p);
                }
            }
            Part::Other { kind, value } => {
                6u8.hash(&mut self.inner);
                self.str(kind);
                self.value(value);
            }
        }
    }

    fn source(&mut self, source: &ImageSource) {
        match source {
            ImageSource::Base64 { len } => {
                0u8.hash(&mut self.inner);
                len.hash(&mut self.inner);
            }
            ImageSource::Inline(data) => {
                0u8.hash(&mut self.inner);
                data.len().hash(&mut self.inner);
            }
            ImageSource::Url(u) => {
                1u8.hash(&mut self.inner);
                self.str(u);
            }
            ImageSource::FileId(f) => {
                2u8.hash(&mut self.inner);
                self.str(f);
            }
            ImageSource::Unknown => 3u8.hash(&mut self.inner),
        }
    }

    fn value(&mut self, value: &Value) {
        match value {
            Value::Null => 0u8.hash(&mut self.inner),
            Value::Bool(b) => {
                1u8.hash(&mut self.inner);
                b.hash(&mut self.inner);
            }
            Value::Number(n) => {
                2u8.hash(&mut self.inner);
                // The textual form is what gets tokenized.
                self.str(&n.to_string());
            }
            Value::String(s) => {
                3u8.hash(&mut self.inner);
                self.str(s);
            }
            Value::Array(items) => {
                4u8.hash(&mut self.inner);
                items.len().hash(&mut self.inner);
                for item in items {
                    self.value(item);
                }
            }
            Value::Object(map) => {
                5u8.hash(&mut self.inner);
                map.len().hash(&mut self.inner);
                for (k, v) in map {
                    self.str(k);
                    self.value(v);
                }
            }
        }
    }
}

/// Per-message estimates of one [`Estimator`] configuration, keyed by [`message_key`].
///
/// Bounded: it holds at most `capacity` entries in two generations of `capacity / 2` each.
/// New entries go to the young generation; when it is full, the old generation is dropped and
/// the young one becomes old; a hit in the old generation moves the entry back to the young one.
/// So the entries used since the last two turnovers stay, the others are evicted (an
/// approximation of least-recently-used at O(1) per access). Used with an estimator of another
/// configuration ([`Estimator::fingerprint`]), the cache empties itself first, so it never
/// returns numbers of another configuration.
#[derive(Clone, Debug)]
pub struct EstimateCache {
    half: usize,
    young: FxHashMap<MessageKey, KindTokens>,
    old: FxHashMap<MessageKey, KindTokens>,
    fingerprint: Option<u64>,
    hits: u64,
    misses: u64,
}

impl Default for EstimateCache {
    fn default() -> Self {
        EstimateCache::new(DEFAULT_CACHE_CAPACITY)
    }
}

impl EstimateCache {
    /// An empty cache holding at most `capacity` entries (at least 2).
    pub fn new(capacity: usize) -> Self {
        EstimateCache {
            half: (capacity / 2).max(1),
            young: FxHashMap::default(),
            old: FxHashMap::default(),
            fingerprint: None,
            hits: 0,
            misses: 0,
        }
    }

    /// The estimate of `message`, from the cache when present, else computed and stored.
    /// Always equal to `estimator.estimate_message(message)` (up to hash collisions, see
    /// [`MessageKey`]).
    pub fn estimate_message(&mut self, estimator: &Estimator, message: &Message) -> KindTokens {
        let fp = estimator.fingerprint();
        if self.fingerprint != Some(fp) {
            self.clear();
            self.fingerprint = Some(fp);
        }
        let key = message_key(message);
        if let Some(k) = self.young.get(&key) {
            self.hits += 1;
            return *k;
        }
        if let Some(k) = self.old.remove(&key) {
            self.hits += 1;
            self.insert(key, k);
            return k;
        }
        self.misses += 1;
        let k = estimator.estimate_message(message);
        self.insert(key, k);
        k
    }

    /// The estimate of every message through the cache; equal to
    /// `estimator.estimate_all(messages)`.
    pub fn estimate_all(&mut self, estimator: &Estimator, messages: &[Message]) -> Estimate {
        Estimate::from_kinds(
            messages
                .iter()
                .map(|m| self.estimate_message(estimator, m))
                .collect(),
        )
    }

    fn insert(&mut self, key: MessageKey, value: KindTokens) {
        if self.young.len() >= self.half {
            self.old = std::mem::take(&mut self.young);
        }
        self.young.insert(key, value);
    }

    /// Entries held (never more than the capacity).
    pub fn len(&self) -> usize {
        self.young.len() + self.old.len()
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The most entries held.
    pub fn capacity(&self) -> usize {
        self.half * 2
    }

    /// Drops every entry (the hit and miss counters stay).
    pub fn clear(&mut self) {
        self.young.clear();
        self.old.clear();
    }

    /// Lookups answered from the cache.
    pub fn hits(&self) -> u64 {
        self.hits
    }

    /// Lookups that had to estimate.
    pub fn misses(&self) -> u64 {
        self.misses
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::core::estimate::ImageRule;
    use crate::core::message::Role;
    use serde_json::json;

    fn conversation() -> Vec<Message> {
        vec![
            Message::text(Role::System, "You are a coding agent."),
            Message::text(Role::User, "Fix the failing test in src/lib.rs"),
            Message::new(
                Role::Assistant,
                vec![Part::ToolCall {
                    id: "c1".into(),
                    name: "read".into(),
                    input: json!({"path": "src/lib.rs", "n": 1.5}),
                }],
            ),
            Message::new(
                Role::Tool,
                vec![Part::ToolResult {
                    id: "c1".into(),
                    name: Some("read".into()),
                    output: vec![Part::text("fn main() { println!(\"hi\"); }")],
                    is_error: false,
                }],
            ),
        ]
    }

    #[test]
    fn hits_return_the_same_numbers() {
        let e = Estimator::default();
        let msgs = conversation();
        let mut cache = EstimateCache::default();
        let first = cache.estimate_all(&e, &msgs);
        assert_eq!(cache.misses(), 4);
        assert_eq!(cache.hits(), 0);
        let second = cache.estimate_all(&e, &msgs);
        assert_eq!(cache.hits(), 4);
        assert_eq!(first, second);
        assert_eq!(first, e.estimate_all(&msgs));
    }

    #[test]
    fn a_changed_message_misses() {
        let e = Estimator::default();
        let mut msgs = conversation();
        let mut cache = EstimateCache::default();
        cache.estimate_all(&e, &msgs);
        let before = cache.misses();
        // change the tool input deep inside
        if let Part::ToolCall { input, .. } = &mut msgs[2].parts[0] {
            input["path"] = json!("src/main.rs");
        }
        // change a role only
        msgs[1].role = Role::Assistant;
        let again = cache.estimate_all(&e, &msgs);
        assert_eq!(cache.misses(), before + 2);
        assert_eq!(again, e.estimate_all(&msgs));
        // markers that do not change the price keep the key
        let mut pinned = msgs[0].clone();
        pinned.pinned = true;
        pinned.timestamp = Some(5);
        assert_eq!(message_key(&pinned), message_key(&msgs[0]));
        // moving text between parts changes the key
        let a = Message::new(Role::User, vec![Part::text("ab"), Part::text("c")]);
        let b = Message::new(Role::User, vec![Part::text("a"), Part::text("bc")]);
        assert_ne!(message_key(&a), message_key(&b));
    }

    #[test]
    fn another_configuration_never_reuses_numbers() {
        let msgs = vec![Message::new(
            Role::User,
            vec![Part::Image {
                media_type: None,
                source: ImageSource::Unknown,
                width: Some(1024),
                height: Some(1024),
                detail: None,
            }],
        )];
        let mut cache = EstimateCache::default();
        let anthropic = Estimator::default();
        let openai = Estimator::default().with_image_rule(ImageRule::OpenAi);
        assert_eq!(
            cache.estimate_all(&anthropic, &msgs).by_kind.images,
            1399 + 4
        );
        assert_eq!(cache.estimate_all(&openai, &msgs).by_kind.images, 765 + 4);
        assert_eq!(cache.hits(), 0);
    }

    #[test]
    fn bounded_with_generational_eviction() {
        let e = Estimator::default();
        let mut cache = EstimateCache::new(4);
        assert_eq!(cache.capacity(), 4);
        let msgs: Vec<Message> = (0..10)
            .map(|i| Message::text(Role::User, format!("message number {i}")))
            .collect();
        for m in &msgs {
            cache.estimate_message(&e, m);
            assert!(cache.len() <= 4);
        }
        // the last two are young, the two before old: they hit
        let misses = cache.misses();
        cache.estimate_message(&e, &msgs[9]);
        cache.estimate_message(&e, &msgs[8]);
        cache.estimate_message(&e, &msgs[6]);
        assert_eq!(cache.misses(), misses);
        assert_eq!(cache.hits(), 3);
        // the first one was evicted
        cache.estimate_message(&e, &msgs[0]);
        assert_eq!(cache.misses(), misses + 1);
        assert!(cache.len() <= 4);
        cache.clear();
        assert!(cache.is_empty());
    }
}
