//! How one column family's values are written and read back, by its merge
//! operator, so that every value read names the version of the key it
//! stands for and a merge under any built-in operator can be checked.
//!
//! * No operator, or one the test has no rule for: merges are written as
//!   puts; a value is [`value_bytes`] of `(key, version)`.
//! * `put`: a merge's operand is the value itself (the newest operand
//!   wins), so values read as without an operator.
//! * `uint64add`: a value is the 8-byte little-endian [`add_code`] of
//!   `(key, version)`, a well-mixed hash; a merge adds the difference
//!   between the new version's code and the code of the version the key
//!   holds (0 when absent). Any prefix of a key's writes therefore sums to
//!   the code of its last version, and a lost, repeated or foreign operand
//!   gives a sum that is no version's code.
//! * `stringappend`: a put writes [`value_bytes`]; a merge appends an
//!   operand naming the new version and the version the key held before
//!   (0 when absent). A value read back is a chain `put,op,op,...` or
//!   `op,op,...` whose links must hold: the first operand of a chain
//!   without a put was written on an absent key, every later operand
//!   names the version before it. A lost, repeated, reordered or
//!   resurrected part breaks a link.

use super::value::{mix64, parse_value, value_bytes};

/// The merge operator of a column family, as far as the test cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operator {
    /// No operator, or one without a rule here: merges are not issued.
    None,
    /// `put`.
    Put,
    /// `uint64add`.
    UInt64Add,
    /// `stringappend` (delimiter `,`).
    StringAppend,
}

impl Operator {
    /// The operator called `name` (`MergeOperator::name`).
    pub fn from_name(name: Option<&str>) -> Operator {
        match name {
            Some("PutOperator") => Operator::Put,
            Some("UInt64AddOperator") => Operator::UInt64Add,
            Some("StringAppendOperator") => Operator::StringAppend,
            _ => Operator::None,
        }
    }
}

/// The values of one column family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Codec {
    /// The family's merge operator.
    pub op: Operator,
    /// Shortest value a put writes (`--value-size-min`).
    pub min: usize,
    /// Longest value a put writes (`--value-size-max`).
    pub max: usize,
}

/// The mark at byte 26 of a `stringappend` operand (a put value has a
/// lowercase letter there, or ends before it).
const OPERAND_MARK: u8 = b'P';
/// Length of a `stringappend` operand: `kkkkkkkk:vvvvvvvvvvvvvvvv:Ppppppppppppppppp`.
const OPERAND_LEN: usize = 43;

/// The `uint64add` code of `(k, version)`.
pub fn add_code(k: u32, version: u64) -> u64 {
    mix64(mix64(u64::from(k)) ^ version)
}

impl Codec {
    /// Whether `--merges` writes merges in this family (else puts).
    pub fn merges(&self) -> bool {
        self.op != Operator::None
    }

    /// The value a put of `(k, version)` writes.
    pub fn put(&self, k: u32, version: u64) -> Vec<u8> {
        match self.op {
            Operator::UInt64Add => add_code(k, version).to_le_bytes().to_vec(),
            _ => value_bytes(k, version, self.min, self.max),
        }
    }

    /// The operand a merge of `(k, version)` writes on a key holding
    /// version `held` (`None`: absent). Only for a family that
    /// [`merges`](Self::merges).
    pub fn merge(&self, k: u32, version: u64, held: Option<u64>) -> Vec<u8> {
        match self.op {
            Operator::UInt64Add => {
                let before = held.map_or(0, |h| add_code(k, h));
                add_code(k, version)
                    .wrapping_sub(before)
                    .to_le_bytes()
                    .to_vec()
            }
            Operator::StringAppend => format!(
                "{k:08}:{version:016x}:{}{:016x}",
                OPERAND_MARK as char,
                held.unwrap_or(0)
            )
            .into_bytes(),
            Operator::None | Operator::Put => self.put(k, version),
        }
    }

    /// The version of key `k` that `value` stands for. `candidates` are
    /// the versions it may hold: a `uint64add` value is matched against
    /// them (its code names no version by itself); the other values name
    /// their version and ignore them.
    ///
    /// # Errors
    /// A message saying why the value is no version of `k`.
    pub fn read(
        &self,
        k: u32,
        value: &[u8],
        candidates: impl IntoIterator<Item = u64>,
    ) -> Result<u64, String> {
        match self.op {
            Operator::UInt64Add => {
                let got = <[u8; 8]>::try_from(value)
                    .map(u64::from_le_bytes)
                    .map_err(|_| format!("{} bytes, not a uint64add value", value.len()))?;
                candidates
                    .into_iter()
                    .find(|&v| add_code(k, v) == got)
                    .ok_or_else(|| format!("uint64add value {got:#018x} is no version it may hold"))
            }
            Operator::StringAppend => self.read_chain(k, value),
            Operator::None | Operator::Put => self.read_put(k, value),
        }
    }

    fn read_put(&self, k: u32, value: &[u8]) -> Result<u64, String> {
        match parse_value(value) {
            Some((vk, v)) if vk == k && value == value_bytes(k, v, self.min, self.max) => Ok(v),
            _ => Err("corrupt value".into()),
        }
    }

    /// The last version of a `stringappend` chain whose links hold.
    fn read_chain(&self, k: u32, value: &[u8]) -> Result<u64, String> {
        let mut last: Option<u64> = None;
        for (i, part) in value.split(|&b| b == b',').enumerate() {
            let (version, before) = match parse_operand(part) {
                Some((pk, v, before)) if pk == k => (v, Some(before)),
                Some(_) => return Err(format!("part {i} is another key's operand")),
                None => (
                    self.read_put(k, part)
                        .map_err(|e| format!("part {i}: {e}"))?,
                    None,
                ),
            };
            match (last, before) {
                // A chain starts with a put, or an operand on an absent key.
                (None, None) | (None, Some(0)) => {}
                (None, Some(b)) => {
                    return Err(format!(
                        "starts with the operand of version {version} written on version {b}"
                    ))
                }
                (Some(_), None) => return Err(format!("a put (version {version}) inside a chain")),
                (Some(l), Some(b)) if b == l => {}
                (Some(l), Some(b)) => {
                    return Err(format!(
                        "operand of version {version} was written on version {b}, found after version {l}"
                    ))
                }
            }
            last = Some(version);
        }
        last.ok_or_else(|| "empty value".into())
    }

    /// Whether `got` is what a key holding `held` (`None`: absent) reads.
    pub fn holds(&self, k: u32, held: Option<u64>, got: Option<&[u8]>) -> bool {
        match (held, got) {
            (None, None) => true,
            (Some(v), Some(g)) => self.read(k, g, [v]) == Ok(v),
            _ => false,
        }
    }

    /// A value as a message shows it.
    pub fn show(&self, value: Option<&[u8]>) -> String {
        match (value, self.op) {
            (None, _) => "absent".into(),
            (Some(v), Operator::UInt64Add) if v.len() == 8 => {
                format!(
                    "{:#018x}",
                    u64::from_le_bytes(v.try_into().unwrap_or([0; 8]))
                )
            }
            (Some(v), _) => format!("{:?}", String::from_utf8_lossy(&v[..v.len().min(60)])),
        }
    }
}

/// `(key, version, version before)` of a `stringappend` operand.
fn parse_operand(part: &[u8]) -> Option<(u32, u64, u64)> {
    if part.len() != OPERAND_LEN || part[26] != OPERAND_MARK {
        return None;
    }
    let (k, v) = parse_value(&part[..26])?;
    let before = u64::from_str_radix(std::str::from_utf8(&part[27..]).ok()?, 16).ok()?;
    Some((k, v, before))
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata::merge::builtin;

    fn codec(op: Operator) -> Codec {
        Codec {
            op,
            min: 30,
            max: 60,
        }
    }

    /// Applies `writes` (`Some(true)` put, `Some(false)` merge, `None`
    /// delete; versions 1, 2, ...) with the engine's own operator and
    /// returns what the key holds, as the DB would.
    fn apply(c: Codec, name: &str, writes: &[Option<bool>]) -> (Option<Vec<u8>>, Option<u64>) {
        let op = builtin(name).unwrap();
        let mut value: Option<Vec<u8>> = None;
        let mut held = None;
        for (i, w) in writes.iter().enumerate() {
            let v = i as u64 + 1;
            match w {
                Some(true) => value = Some(c.put(7, v)),
                Some(false) => {
                    let operand = c.merge(7, v, held);
                    value = op.full_merge(b"k", value.as_deref(), &[&operand]);
                }
                None => value = None,
            }
            held = w.map(|_| v);
        }
        (value, held)
    }

    const HISTORIES: &[&[Option<bool>]] = &[
        &[Some(false)],
        &[Some(true), Some(false), Some(false)],
        &[
            Some(false),
            Some(false),
            None,
            Some(false),
            Some(true),
            Some(false),
        ],
        &[Some(true), None],
    ];

    #[test]
    fn every_history_reads_as_its_last_version() {
        for (op, name) in [
            (Operator::Put, "put"),
            (Operator::UInt64Add, "uint64add"),
            (Operator::StringAppend, "stringappend"),
        ] {
            let c = codec(op);
            for h in HISTORIES {
                let (value, held) = apply(c, name, h);
                assert!(c.holds(7, held, value.as_deref()), "{name} {h:?}");
                if let (Some(v), Some(value)) = (held, &value) {
                    assert!(!c.holds(7, Some(v + 1), Some(value)), "{name} {h:?}");
                    assert!(
                        !c.holds(8, Some(v), Some(value)),
                        "{name} {h:?}: another key"
                    );
                }
            }
        }
    }

    /// The operators whose operands depend on the version held.
    const MERGING: [(Operator, &str); 2] = [
        (Operator::UInt64Add, "uint64add"),
        (Operator::StringAppend, "stringappend"),
    ];

    /// A put of version 1 and the merges of versions 2, 3 and 4 after it.
    fn put_and_three_merges(c: Codec) -> (Vec<u8>, [Vec<u8>; 3]) {
        let ops = [2, 3, 4].map(|v| c.merge(7, v, Some(v - 1)));
        (c.put(7, 1), ops)
    }

    /// Merges combined in any grouping (partial merges in a compaction)
    /// give the same value.
    #[test]
    fn partial_merges_give_the_same_value() {
        for (op, name) in MERGING {
            let (c, m) = (codec(op), builtin(name).unwrap());
            let (base, ops) = put_and_three_merges(c);
            let partial = m.partial_merge(b"k", &[&ops[1], &ops[2]]).unwrap();
            let v = m
                .full_merge(b"k", Some(&base), &[&ops[0], &partial])
                .unwrap();
            assert_eq!(c.read(7, &v, [4]), Ok(4), "{name}");
        }
    }

    #[test]
    fn a_lost_repeated_or_reordered_operand_is_caught() {
        for (op, name) in MERGING {
            let (c, m) = (codec(op), builtin(name).unwrap());
            let (base, ops) = put_and_three_merges(c);
            let mut bad: Vec<Vec<&[u8]>> = vec![
                vec![&ops[0], &ops[2]],
                vec![&ops[0], &ops[1], &ops[1], &ops[2]],
            ];
            // Addition commutes: an order no reader can see is no fault.
            if op == Operator::StringAppend {
                bad.push(vec![&ops[1], &ops[0], &ops[2]]);
            }
            for parts in bad {
                let v = m.full_merge(b"k", Some(&base), &parts).unwrap();
                assert!(
                    c.read(7, &v, 1..=4).is_err(),
                    "{name}: {}",
                    c.show(Some(&v))
                );
            }
            // Operands that outlived a delete: applied on the value before it.
            let v = m
                .full_merge(b"k", Some(&base), &[&c.merge(7, 3, None)])
                .unwrap();
            assert!(c.read(7, &v, 1..=4).is_err(), "{name}: resurrected");
        }
    }

    #[test]
    fn put_values_are_not_operands() {
        let c = codec(Operator::StringAppend);
        for len in [26, 27, 43, 44] {
            let c = Codec {
                min: len,
                max: len,
                ..c
            };
            assert_eq!(c.read(7, &c.put(7, 9), [9]), Ok(9));
        }
        assert!(c.read(7, b"", [1]).is_err());
        assert!(c.read(7, b"garbage", [1]).is_err());
    }
}
