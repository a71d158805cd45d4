//! Recovery verification: compares what a reopened DB holds with the
//! baseline plus the op log, and computes the next baseline.

use std::collections::{BTreeMap, HashMap};

use anyhow::Result;
use strata::{ColumnFamily, Db};

use super::codec::{Codec, Operator};
use super::expected::{KeyState, Record, RecordKind};
use super::value::{key_bytes, parse_key};

/// How durable an acknowledged write is.
#[derive(Debug, Clone, Copy)]
pub struct Durability {
    /// Every acknowledged write survives (WAL on, and only the process is
    /// killed: the WAL's bytes reached the OS before the acknowledgement).
    /// When false, only synced writes and writes acknowledged before a
    /// successful `flush()` are durable.
    pub acked_durable: bool,
    /// A batch across column families is all or nothing (the WAL is on).
    /// Without the WAL the families are flushed one by one, so only each
    /// family's part of a batch is.
    pub cross_family_atomic: bool,
}

/// The outcome of one verification.
#[derive(Debug)]
pub struct Outcome {
    /// Keys checked (each both through `get` and a full scan), counted
    /// once per column family.
    pub keys_verified: u64,
    /// Acknowledged writes found in the log.
    pub acked_ops: u64,
    /// Violations, one line each (empty when all is well).
    pub violations: Vec<String>,
    /// The state to use as the next baseline, per column family.
    pub next: Vec<Vec<KeyState>>,
}

/// A put of a batch: (family, key, version). Batches are keyed by batch id
/// and family (0 when the whole batch is atomic, the family when only each
/// family's part is).
type BatchPut = (usize, u32, u64);

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

/// For each of `nf` column families: whether the log's last drop of it
/// began but was not acknowledged (the family may then be dropped, or
/// empty).
pub fn drops_pending(log: &[Record], nf: usize) -> Vec<bool> {
    let mut pending = vec![false; nf];
    for r in log {
        let started = match r.kind {
            RecordKind::DropStart => true,
            RecordKind::DropAck => false,
            _ => continue,
        };
        for (f, p) in pending.iter_mut().enumerate() {
            if r.family_mask() & (1 << f) != 0 {
                *p = started;
            }
        }
    }
    pending
}

/// Reads every key of `db` (one column family, "default") and checks it
/// against `base` + `log`.
///
/// # Errors
/// Only for failures of the checking itself; DB read errors are reported
/// as violations.
#[cfg(test)]
pub fn verify(
    db: &Db,
    base: &[KeyState],
    log: &[Record],
    dur: Durability,
    codec: Codec,
) -> Result<Outcome> {
    verify_families(
        db,
        &[db.default_column_family()],
        &["default".to_string()],
        &[base.to_vec()],
        log,
        dur,
        &[codec],
    )
}

/// Reads every key of each column family of `families` (named `names`,
/// "default" first) and checks it against its table of `bases` + `log`.
/// A write names the families it went to; it is the same key and version
/// in each, and a batch across families must be all or nothing. A drop
/// and re-creation of a family (`DROP_START` .. `DROP_ACK`) empties it:
/// after an acknowledged one the family holds only later writes, after an
/// unacknowledged one it is either as if the drop had not begun or empty.
///
/// # Errors
/// Only for failures of the checking itself; DB read errors are reported
/// as violations.
#[allow(clippy::too_many_arguments)]
pub fn verify_families(
    db: &Db,
    families: &[ColumnFamily],
    names: &[String],
    bases: &[Vec<KeyState>],
    log: &[Record],
    dur: Durability,
    codecs: &[Codec],
) -> Result<Outcome> {
    let nf = bases.len();
    let n = bases.first().map_or(0, Vec::len);
    // Messages name the family only when there are several.
    let label = |f: usize| {
        if nf == 1 {
            String::new()
        } else {
            format!("{}: ", names[f])
        }
    };
    let mut keys: Vec<Vec<KeyLog>> = (0..nf)
        .map(|_| (0..n).map(|_| KeyLog::default()).collect())
        .collect();
    let mut violations = Vec::new();
    // The state each family starts from: the baseline, or empty after an
    // acknowledged drop (the version then is the newest started before it).
    let mut start: Vec<Vec<KeyState>> = bases.to_vec();
    let mut next: Vec<Vec<KeyState>> = bases.to_vec();
    // Per key: the newest version started so far (versions are per key,
    // shared by the families, and only grow).
    let mut newest: Vec<u64> = (0..n)
        .map(|k| bases.iter().map(|b| b[k].max_used).max().unwrap_or(0))
        .collect();
    // Families whose last drop began but was not acknowledged.
    let mut drop_pending = vec![false; nf];
    let flushed_upto = log
        .iter()
        .filter(|r| r.kind == RecordKind::Flushed)
        .map(|r| r.aux)
        .max()
        .unwrap_or(0);
    let mut acked_ops = 0u64;
    let mut batches: HashMap<(u64, usize), Vec<BatchPut>> = HashMap::new();
    for (i, r) in log.iter().enumerate() {
        let mask = r.family_mask();
        let fams: Vec<usize> = (0..16).filter(|f| mask & (1 << f) != 0).collect();
        if fams.iter().any(|&f| f >= nf) {
            violations.push(format!(
                "log record {i} names column families {mask:#x}, this run has {nf}"
            ));
            continue;
        }
        match r.kind {
            RecordKind::Flushed => continue,
            RecordKind::DropStart => {
                for &f in &fams {
                    drop_pending[f] = true;
                }
                continue;
            }
            RecordKind::DropAck => {
                for &f in &fams {
                    drop_pending[f] = false;
                    for k in 0..n {
                        keys[f][k] = KeyLog::default();
                        start[f][k] = KeyState {
                            version: newest[k],
                            exists: false,
                            max_used: newest[k],
                        };
                    }
                    for ops in batches.values_mut() {
                        ops.retain(|&(bf, _, _)| bf != f);
                    }
                }
                continue;
            }
            _ => {}
        }
        let k = r.key as usize;
        if k >= n {
            violations.push(format!("log record {i} names key {} out of range", r.key));
            continue;
        }
        match r.kind {
            RecordKind::StartPut | RecordKind::StartDelete => {
                let del = r.kind == RecordKind::StartDelete;
                newest[k] = newest[k].max(r.version);
                for table in &mut next {
                    table[k].max_used = table[k].max_used.max(r.version);
                }
                for &f in &fams {
                    if r.version > start[f][k].version {
                        keys[f][k].started.insert(r.version, del);
                        if r.aux != 0 && !del {
                            let part = if dur.cross_family_atomic { 0 } else { f };
                            batches
                                .entry((r.aux, part))
                                .or_default()
                                .push((f, r.key, r.version));
                        }
                    }
                }
            }
            RecordKind::Ack => {
                acked_ops += 1;
                let durable = dur.acked_durable || r.synced || (i as u64) < flushed_upto;
                for &f in &fams {
                    if durable && r.version > start[f][k].version {
                        let kl = &mut keys[f][k];
                        let del = kl.started.get(&r.version).copied().unwrap_or(false);
                        if kl.floor.is_none_or(|(v, _)| r.version > v) {
                            kl.floor = Some((r.version, del));
                        }
                    }
                }
            }
            _ => {}
        }
    }

    let mut keys_verified = 0u64;
    for f in 0..nf {
        let cf = &families[f];
        let mut fam_violations = Vec::new();
        // Keys not at an allowed version: all of them are right if the
        // family was dropped by a drop that was not acknowledged.
        let mut not_allowed: Vec<usize> = Vec::new();
        let mut empty = true;
        // Read the whole family by scan, then each key by get; they must
        // agree.
        let mut scanned: Vec<Option<Vec<u8>>> = vec![None; n];
        let mut prev: Option<Vec<u8>> = None;
        let iter = if f == 0 {
            Ok(db.iter())
        } else {
            db.iter_cf(cf, &strata::ReadOptions::default())
        };
        let iter = match iter {
            Ok(it) => it,
            Err(e) => {
                violations.push(format!("{}scan failed: {e}", label(f)));
                continue;
            }
        };
        for item in iter {
            let (k, v) = match item {
                Ok(kv) => kv,
                Err(e) => {
                    fam_violations.push(format!("{}scan failed: {e}", label(f)));
                    break;
                }
            };
            empty = false;
            if prev.as_ref().is_some_and(|p| *p >= k) {
                fam_violations.push(format!(
                    "{}scan out of order: {} after {}",
                    label(f),
                    String::from_utf8_lossy(&k),
                    String::from_utf8_lossy(prev.as_deref().unwrap_or_default())
                ));
            }
            match parse_key(&k).filter(|&i| (i as usize) < n) {
                Some(i) => scanned[i as usize] = Some(v),
                None => fam_violations.push(format!(
                    "{}unexpected key {} in the DB",
                    label(f),
                    String::from_utf8_lossy(&k)
                )),
            }
            prev = Some(k);
        }

        for (i, kl) in keys[f].iter().enumerate() {
            let key = key_bytes(i as u32);
            let got = if f == 0 {
                db.get(&key)
            } else {
                db.get_cf(cf, &key)
            };
            let got = match got {
                Ok(g) => g,
                Err(e) => {
                    fam_violations.push(format!("{}get key{i:08} failed: {e}", label(f)));
                    continue;
                }
            };
            keys_verified += 1;
            empty &= got.is_none();
            if got != scanned[i] {
                fam_violations.push(format!(
                    "{}key{i:08}: get and scan disagree ({} vs {})",
                    label(f),
                    got.as_ref()
                        .map_or("absent".into(), |v| format!("{} bytes", v.len())),
                    scanned[i]
                        .as_ref()
                        .map_or("absent".into(), |v| format!("{} bytes", v.len()))
                ));
            }
            let b = start[f][i];
            let (floor_v, floor_exists) = match kl.floor {
                Some((v, del)) => (v, !del),
                None => (b.version, b.exists),
            };
            let later: Vec<(u64, bool)> = kl
                .started
                .range(floor_v + 1..)
                .map(|(&v, &d)| (v, d))
                .collect();
            let codec = &codecs[f];
            let found = match &got {
                None => None,
                Some(val) => {
                    let allowed = floor_exists
                        .then_some(floor_v)
                        .into_iter()
                        .chain(later.iter().filter(|&&(_, d)| !d).map(|&(v, _)| v));
                    // A uint64add value outside the allowed versions is
                    // named by the version it is, if any.
                    let any = (codec.op == Operator::UInt64Add)
                        .then(|| 1..=next[f][i].max_used)
                        .into_iter()
                        .flatten();
                    match codec
                        .read(i as u32, val, allowed)
                        .or_else(|e| codec.read(i as u32, val, any).map_err(|_| e))
                    {
                        Ok(v) => Some(v),
                        Err(e) => {
                            fam_violations.push(format!(
                                "{}key{i:08}: {e}: {}",
                                label(f),
                                codec.show(Some(val))
                            ));
                            continue;
                        }
                    }
                }
            };
            let ok = match found {
                None => !floor_exists || later.iter().any(|&(_, d)| d),
                Some(v) => {
                    (v == floor_v && floor_exists) || later.iter().any(|&(lv, d)| lv == v && !d)
                }
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
                not_allowed.push(fam_violations.len());
                fam_violations.push(format!(
                    "{}key{i:08}: expected {}; found {}",
                    label(f),
                    allowed.join(" or "),
                    describe(found)
                ));
            }
            let ns = &mut next[f][i];
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
        // A drop that began but was not acknowledged may have happened: an
        // empty family is then right, and its part of earlier batches is
        // gone.
        if drop_pending[f] && empty {
            for &j in not_allowed.iter().rev() {
                fam_violations.remove(j);
            }
            for ops in batches.values_mut() {
                ops.retain(|&(bf, _, _)| bf != f);
            }
        }
        violations.extend(fam_violations);
    }

    // A batch is all or nothing: its puts are either all visible (at their
    // version or a later one) or all missing, in every family it wrote.
    let mut ids: Vec<&(u64, usize)> = batches.keys().collect();
    ids.sort_unstable();
    for id in ids {
        let ops = &batches[id];
        let applied: Vec<bool> = ops
            .iter()
            .filter_map(|&(f, k, v)| {
                let ns = next.get(f)?.get(k as usize)?;
                if ns.exists {
                    Some(ns.version >= v)
                } else if keys[f][k as usize].started.range(v + 1..).any(|(_, &d)| d) {
                    None // deleted later: cannot tell
                } else {
                    Some(false)
                }
            })
            .collect();
        if applied.iter().any(|&a| a) && applied.iter().any(|&a| !a) {
            violations.push(format!(
                "batch {} partly applied: keys {:?}",
                id.0,
                ops.iter()
                    .map(|&(f, k, v)| format!("{}key{k:08}@{v}", label(f)))
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
    use crate::stress::value::value_bytes;

    const MIN: usize = 30;
    const MAX: usize = 40;
    const CODEC: Codec = Codec {
        op: Operator::None,
        min: MIN,
        max: MAX,
    };

    fn rec(kind: RecordKind, synced: bool, key: u32, version: u64, aux: u64) -> Record {
        Record {
            kind,
            synced,
            key,
            version,
            aux,
            families: 0,
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
        cross_family_atomic: true,
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
        let out = verify(&db, &base(2), &log, LAX, CODEC).unwrap();
        assert!(out.violations.is_empty(), "{:?}", out.violations);
        assert_eq!(out.next[0][0].version, 1);
        assert!(out.next[0][0].exists);
        assert_eq!(out.next[0][0].max_used, 2);
        // The same loss is a violation when version 2 was synced ...
        let mut synced = log.clone();
        synced[3].synced = true;
        let out = verify(&db, &base(2), &synced, LAX, CODEC).unwrap();
        assert_eq!(out.violations.len(), 1, "{:?}", out.violations);
        assert!(out.violations[0].contains("found version 1"));
        // ... or when acknowledged writes count as durable ...
        let strict = Durability {
            acked_durable: true,
            cross_family_atomic: true,
        };
        assert_eq!(
            verify(&db, &base(2), &log, strict, CODEC)
                .unwrap()
                .violations
                .len(),
            1
        );
        // ... or when a later flush covered it.
        let mut flushed = log.clone();
        flushed.push(rec(RecordKind::Flushed, false, u32::MAX, 0, 4));
        assert_eq!(
            verify(&db, &base(2), &flushed, LAX, CODEC)
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
        let out = verify(&db, &base(2), &log, LAX, CODEC).unwrap();
        assert_eq!(out.violations.len(), 1, "{:?}", out.violations);
        assert!(out.violations[0].contains("key00000001"));
    }

    #[test]
    fn never_written_version_and_foreign_keys_are_violations() {
        let (_d, db) = db_with(&[(0, 7)]);
        db.put(b"stranger", b"x").unwrap();
        let out = verify(&db, &base(1), &[], LAX, CODEC).unwrap();
        assert_eq!(out.violations.len(), 2, "{:?}", out.violations);
    }

    #[test]
    fn pending_write_may_or_may_not_survive() {
        let (_d, db) = db_with(&[(0, 1)]);
        let log = vec![rec(RecordKind::StartPut, true, 0, 1, 0)];
        let out = verify(&db, &base(1), &log, LAX, CODEC).unwrap();
        assert!(out.violations.is_empty(), "{:?}", out.violations);
        let (_d2, empty) = db_with(&[]);
        let out = verify(&empty, &base(1), &log, LAX, CODEC).unwrap();
        assert!(out.violations.is_empty(), "{:?}", out.violations);
    }

    #[test]
    fn half_applied_batch_is_a_violation() {
        let (_d, db) = db_with(&[(0, 1)]);
        let log = vec![
            rec(RecordKind::StartPut, false, 0, 1, 9),
            rec(RecordKind::StartPut, false, 1, 1, 9),
        ];
        let out = verify(&db, &base(2), &log, LAX, CODEC).unwrap();
        assert_eq!(out.violations.len(), 1, "{:?}", out.violations);
        assert!(out.violations[0].contains("batch 9"));
    }

    /// A DB with families "default", "cf1", "cf2" holding `(family, key,
    /// version)` entries.
    fn db_with_families(
        entries: &[(usize, u32, u64)],
    ) -> (tempfile::TempDir, Db, Vec<ColumnFamily>) {
        let d = tempfile::tempdir().unwrap();
        let opts = strata::Options::default().create_missing_column_families(true);
        let db = Db::open_cf(
            d.path().join("db"),
            opts,
            [
                ("cf1", strata::Options::default()),
                ("cf2", strata::Options::default()),
            ],
        )
        .unwrap();
        let fams: Vec<ColumnFamily> = ["default", "cf1", "cf2"]
            .iter()
            .map(|n| db.column_family(n).unwrap())
            .collect();
        for &(f, k, v) in entries {
            db.put_cf(&fams[f], key_bytes(k), value_bytes(k, v, MIN, MAX))
                .unwrap();
        }
        (d, db, fams)
    }

    fn names() -> Vec<String> {
        ["default", "cf1", "cf2"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    fn in_families(mut r: Record, mask: u16) -> Record {
        r.families = Record::encode_families(mask);
        r
    }

    fn check_families(
        db: &Db,
        fams: &[ColumnFamily],
        keys: usize,
        log: &[Record],
        dur: Durability,
    ) -> Outcome {
        verify_families(
            db,
            fams,
            &names(),
            &vec![base(keys); 3],
            log,
            dur,
            &[CODEC; 3],
        )
        .unwrap()
    }

    #[test]
    fn a_write_to_several_families_must_be_in_all_or_none() {
        // Key 0, version 1, written to cf1 and cf2 in one batch, is only
        // in cf1.
        let (_d, db, fams) = db_with_families(&[(1, 0, 1)]);
        let log = vec![
            in_families(rec(RecordKind::StartPut, false, 0, 1, 5), 0b110),
            in_families(rec(RecordKind::Ack, false, 0, 1, 5), 0b110),
        ];
        let out = check_families(&db, &fams, 1, &log, LAX);
        assert_eq!(out.violations.len(), 1, "{:?}", out.violations);
        assert!(
            out.violations[0].contains("batch 5 partly applied")
                && out.violations[0].contains("cf2: key00000000@1"),
            "{:?}",
            out.violations
        );
        assert!(out.next[1][0].exists && !out.next[2][0].exists);
        // Without the WAL only each family's part of a batch is atomic.
        let per_family = Durability {
            acked_durable: false,
            cross_family_atomic: false,
        };
        let out = check_families(&db, &fams, 1, &log, per_family);
        assert!(out.violations.is_empty(), "{:?}", out.violations);
        // A durable write lost in one family is a violation there only.
        let strict = Durability {
            acked_durable: true,
            cross_family_atomic: true,
        };
        let out = check_families(&db, &fams, 1, &log, strict);
        assert!(
            out.violations
                .iter()
                .any(|v| v.starts_with("cf2: key00000000: expected version 1 (durable)")),
            "{:?}",
            out.violations
        );
        assert!(!out.violations.iter().any(|v| v.starts_with("cf1:")));
    }

    #[test]
    fn a_dropped_family_holds_only_later_writes() {
        let drop = |kind| in_families(rec(kind, false, u32::MAX, 0, 0), 0b10);
        let log = vec![
            in_families(rec(RecordKind::StartPut, false, 0, 1, 0), 0b10),
            in_families(rec(RecordKind::Ack, false, 0, 1, 0), 0b10),
            drop(RecordKind::DropStart),
            drop(RecordKind::DropAck),
            in_families(rec(RecordKind::StartPut, false, 1, 1, 0), 0b10),
        ];
        // The version written before the acknowledged drop came back.
        let (_d, db, fams) = db_with_families(&[(1, 0, 1)]);
        let out = check_families(&db, &fams, 2, &log, LAX);
        assert_eq!(out.violations.len(), 1, "{:?}", out.violations);
        assert!(
            out.violations[0].starts_with("cf1: key00000000: expected absent"),
            "{:?}",
            out.violations
        );
        // Empty, or with the write made after it, is right.
        let (_d, db, fams) = db_with_families(&[(1, 1, 1)]);
        let out = check_families(&db, &fams, 2, &log, LAX);
        assert!(out.violations.is_empty(), "{:?}", out.violations);
        assert!(!out.next[1][0].exists && out.next[1][0].max_used == 1);
        // A drop that began but was not acknowledged: the family is as
        // before, or empty; not missing one durable write.
        let started = &log[..3];
        let strict = Durability {
            acked_durable: true,
            cross_family_atomic: true,
        };
        let (_d, db, fams) = db_with_families(&[(1, 0, 1)]);
        assert!(check_families(&db, &fams, 2, started, strict)
            .violations
            .is_empty());
        let (_d, db, fams) = db_with_families(&[]);
        assert!(check_families(&db, &fams, 2, started, strict)
            .violations
            .is_empty());
        assert_eq!(drops_pending(started, 3), [false, true, false]);
        assert_eq!(drops_pending(&log, 3), [false, false, false]);
    }
}
