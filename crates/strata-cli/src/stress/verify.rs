//! Recovery verification: compares what a reopened DB holds with the
//! baseline plus the op log, and computes the next baseline.

use std::collections::{BTreeMap, HashMap};

use anyhow::Result;
use strata::Db;

use super::expected::{KeyState, Record, RecordKind};
use super::value::{key_bytes, parse_key, parse_value, value_bytes};

/// How durable an acknowledged write is.
#[derive(Debug, Clone, Copy)]
pub struct Durability {
    /// Every acknowledged write survives (WAL on, and only the process is
    /// killed: the WAL's bytes reached the OS before the acknowledgement).
    /// When false, only synced writes and writes acknowledged before a
    /// successful `flush()` are durable.
    pub acked_durable: bool,
}

/// The outcome of one verification.
#[derive(Debug)]
pub struct Outcome {
    /// Keys checked (each both through `get` and a full scan).
    pub keys_verified: u64,
    /// Acknowledged writes found in the log.
    pub acked_ops: u64,
    /// Violations, one line each (empty when all is well).
    pub violations: Vec<String>,
    /// The state to use as the next baseline.
    pub next: Vec<KeyState>,
}

/// What the log says about one key.
#[derive(Default)]
struct KeyLog {
    /// Versions started after the baseline: version -> is a delete.
    started: BTreeMap<u64, bool>,
    floor: Option<(u64, bool)>,
}

fn describe(found: Option<u64>) -> String {
    match found {
        Some(v) => format!("version {v}"),
        None => "absent".into(),
    }
}

/// Reads every key of `db` and checks it against `base` + `log`.
///
/// # Errors
/// Only for failures of the checking itself; DB read errors are reported
/// as violations.
pub fn verify(
    db: &Db,
    base: &[KeyState],
    log: &[Record],
    dur: Durability,
    value_min: usize,
    value_max: usize,
) -> Result<Outcome> {
    let n = base.len();
    let mut keys: Vec<KeyLog> = (0..n).map(|_| KeyLog::default()).collect();
    let mut violations = Vec::new();
    let mut next: Vec<KeyState> = base.to_vec();
    let flushed_upto = log
        .iter()
        .filter(|r| r.kind == RecordKind::Flushed)
        .map(|r| r.aux)
        .max()
        .unwrap_or(0);
    let mut acked_ops = 0u64;
    let mut batches: HashMap<u64, Vec<(u32, u64)>> = HashMap::new();
    for (i, r) in log.iter().enumerate() {
        let Some(kl) = keys.get_mut(r.key as usize) else {
            if r.kind != RecordKind::Flushed {
                violations.push(format!("log record {i} names key {} out of range", r.key));
            }
            continue;
        };
        let b = &base[r.key as usize];
        match r.kind {
            RecordKind::StartPut | RecordKind::StartDelete => {
                let del = r.kind == RecordKind::StartDelete;
                if let Some(ns) = next.get_mut(r.key as usize) {
                    ns.max_used = ns.max_used.max(r.version);
                }
                if r.version > b.version {
                    kl.started.insert(r.version, del);
                    if r.aux != 0 && !del {
                        batches.entry(r.aux).or_default().push((r.key, r.version));
                    }
                }
            }
            RecordKind::Ack => {
                acked_ops += 1;
                let durable = dur.acked_durable || r.synced || (i as u64) < flushed_upto;
                if durable && r.version > b.version {
                    let del = kl.started.get(&r.version).copied().unwrap_or(false);
                    if kl.floor.is_none_or(|(v, _)| r.version > v) {
                        kl.floor = Some((r.version, del));
                    }
                }
            }
            RecordKind::Flushed => {}
        }
    }

    // Read the whole DB by scan, then each key by get; they must agree.
    let mut scanned: Vec<Option<Vec<u8>>> = vec![None; n];
    let mut prev: Option<Vec<u8>> = None;
    for item in db.iter() {
        let (k, v) = match item {
            Ok(kv) => kv,
            Err(e) => {
                violations.push(format!("scan failed: {e}"));
                break;
            }
        };
        if prev.as_ref().is_some_and(|p| *p >= k) {
            violations.push(format!(
                "scan out of order: {} after {}",
                String::from_utf8_lossy(&k),
                String::from_utf8_lossy(prev.as_deref().unwrap_or_default())
            ));
        }
        match parse_key(&k).filter(|&i| (i as usize) < n) {
            Some(i) => scanned[i as usize] = Some(v),
            None => violations.push(format!(
                "unexpected key {} in the DB",
                String::from_utf8_lossy(&k)
            )),
        }
        prev = Some(k);
    }

    let mut keys_verified = 0u64;
    for (i, kl) in keys.iter().enumerate() {
        let key = key_bytes(i as u32);
        let got = match db.get(&key) {
            Ok(g) => g,
            Err(e) => {
                violations.push(format!("get key{i:08} failed: {e}"));
                continue;
            }
        };
        keys_verified += 1;
        if got != scanned[i] {
            violations.push(format!(
                "key{i:08}: get and scan disagree ({} vs {})",
                got.as_ref()
                    .map_or("absent".into(), |v| format!("{} bytes", v.len())),
                scanned[i]
                    .as_ref()
                    .map_or("absent".into(), |v| format!("{} bytes", v.len()))
            ));
        }
        let b = base[i];
        let (floor_v, floor_exists) = match kl.floor {
            Some((v, del)) => (v, !del),
            None => (b.version, b.exists),
        };
        let later: Vec<(u64, bool)> = kl
            .started
            .range(floor_v + 1..)
            .map(|(&v, &d)| (v, d))
            .collect();
        let found = match &got {
            None => None,
            Some(val) => match parse_value(val) {
                Some((k, v))
                    if k as usize == i && *val == value_bytes(k, v, value_min, value_max) =>
                {
                    Some(v)
                }
                _ => {
                    violations.push(format!(
                        "key{i:08}: corrupt value {:?}",
                        String::from_utf8_lossy(&val[..val.len().min(40)])
                    ));
                    continue;
                }
            },
        };
        let ok = match found {
            None => !floor_exists || later.iter().any(|&(_, d)| d),
            Some(v) => (v == floor_v && floor_exists) || later.iter().any(|&(lv, d)| lv == v && !d),
        };
        if !ok {
            let mut allowed = vec![if floor_exists {
                format!("version {floor_v} (durable)")
            } else {
                format!("absent (deleted as version {floor_v}, durable)")
            }];
            for (v, d) in &later {
                allowed.push(if *d {
                    format!("absent (delete {v}, not durable)")
                } else {
                    format!("version {v} (not durable)")
                });
            }
            violations.push(format!(
                "key{i:08}: expected {}; found {}",
                allowed.join(" or "),
                describe(found)
            ));
        }
        let ns = &mut next[i];
        match found {
            Some(v) => {
                ns.version = v;
                ns.exists = true;
            }
            None => {
                ns.version = ns.max_used;
                ns.exists = false;
            }
        }
    }

    // A batch is all or nothing: its puts are either all visible (at their
    // version or a later one) or all missing.
    for (id, ops) in &batches {
        let applied: Vec<bool> = ops
            .iter()
            .filter_map(|&(k, v)| {
                let ns = next.get(k as usize)?;
                if ns.exists {
                    Some(ns.version >= v)
                } else if keys[k as usize].started.range(v + 1..).any(|(_, &d)| d) {
                    None // deleted later: cannot tell
                } else {
                    Some(false)
                }
            })
            .collect();
        if applied.iter().any(|&a| a) && applied.iter().any(|&a| !a) {
            violations.push(format!(
                "batch {id} partly applied: keys {:?}",
                ops.iter()
                    .map(|(k, v)| format!("key{k:08}@{v}"))
                    .collect::<Vec<_>>()
            ));
        }
    }
    Ok(Outcome {
        keys_verified,
        acked_ops,
        violations,
        next,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: usize = 30;
    const MAX: usize = 40;

    fn rec(kind: RecordKind, synced: bool, key: u32, version: u64, aux: u64) -> Record {
        Record {
            kind,
            synced,
            key,
            version,
            aux,
        }
    }

    fn db_with(entries: &[(u32, u64)]) -> (tempfile::TempDir, Db) {
        let d = tempfile::tempdir().unwrap();
        let db = Db::open(d.path().join("db"), strata::Options::default()).unwrap();
        for &(k, v) in entries {
            db.put(key_bytes(k), value_bytes(k, v, MIN, MAX)).unwrap();
        }
        (d, db)
    }

    fn base(n: usize) -> Vec<KeyState> {
        vec![KeyState::default(); n]
    }

    const LAX: Durability = Durability {
        acked_durable: false,
    };

    #[test]
    fn lost_synced_write_is_a_violation_lost_unsynced_is_not() {
        let (_d, db) = db_with(&[(0, 1)]);
        let log = vec![
            rec(RecordKind::StartPut, false, 0, 1, 0),
            rec(RecordKind::Ack, false, 0, 1, 0),
            rec(RecordKind::StartPut, false, 0, 2, 0),
            rec(RecordKind::Ack, false, 0, 2, 0),
        ];
        let out = verify(&db, &base(2), &log, LAX, MIN, MAX).unwrap();
        assert!(out.violations.is_empty(), "{:?}", out.violations);
        assert_eq!(out.next[0].version, 1);
        assert!(out.next[0].exists);
        assert_eq!(out.next[0].max_used, 2);
        // The same loss is a violation when version 2 was synced ...
        let mut synced = log.clone();
        synced[3].synced = true;
        let out = verify(&db, &base(2), &synced, LAX, MIN, MAX).unwrap();
        assert_eq!(out.violations.len(), 1, "{:?}", out.violations);
        assert!(out.violations[0].contains("found version 1"));
        // ... or when acknowledged writes count as durable ...
        let strict = Durability {
            acked_durable: true,
        };
        assert_eq!(
            verify(&db, &base(2), &log, strict, MIN, MAX)
                .unwrap()
                .violations
                .len(),
            1
        );
        // ... or when a later flush covered it.
        let mut flushed = log.clone();
        flushed.push(rec(RecordKind::Flushed, false, u32::MAX, 0, 4));
        assert_eq!(
            verify(&db, &base(2), &flushed, LAX, MIN, MAX)
                .unwrap()
                .violations
                .len(),
            1
        );
    }

    #[test]
    fn deleted_key_must_not_come_back() {
        let (_d, db) = db_with(&[(1, 1)]);
        let log = vec![
            rec(RecordKind::StartDelete, true, 1, 2, 0),
            rec(RecordKind::Ack, true, 1, 2, 0),
        ];
        let out = verify(&db, &base(2), &log, LAX, MIN, MAX).unwrap();
        assert_eq!(out.violations.len(), 1, "{:?}", out.violations);
        assert!(out.violations[0].contains("key00000001"));
    }

    #[test]
    fn never_written_version_and_foreign_keys_are_violations() {
        let (_d, db) = db_with(&[(0, 7)]);
        db.put(b"stranger", b"x").unwrap();
        let out = verify(&db, &base(1), &[], LAX, MIN, MAX).unwrap();
        assert_eq!(out.violations.len(), 2, "{:?}", out.violations);
    }

    #[test]
    fn pending_write_may_or_may_not_survive() {
        let (_d, db) = db_with(&[(0, 1)]);
        let log = vec![rec(RecordKind::StartPut, true, 0, 1, 0)];
        let out = verify(&db, &base(1), &log, LAX, MIN, MAX).unwrap();
        assert!(out.violations.is_empty(), "{:?}", out.violations);
        let (_d2, empty) = db_with(&[]);
        let out = verify(&empty, &base(1), &log, LAX, MIN, MAX).unwrap();
        assert!(out.violations.is_empty(), "{:?}", out.violations);
    }

    #[test]
    fn half_applied_batch_is_a_violation() {
        let (_d, db) = db_with(&[(0, 1)]);
        let log = vec![
            rec(RecordKind::StartPut, false, 0, 1, 9),
            rec(RecordKind::StartPut, false, 1, 1, 9),
        ];
        let out = verify(&db, &base(2), &log, LAX, MIN, MAX).unwrap();
        assert_eq!(out.violations.len(), 1, "{:?}", out.violations);
        assert!(out.violations[0].contains("batch 9"));
    }
}
