//! The flush and compaction jobs of one step, read from the DB's LOG after
//! the step's bench process ends (strata::event_log::timeline; RocksDB
//! writes the same events, so this works for both engines). Each bench
//! process opens the DB anew and the LOG is rotated at open, so the LOG
//! holds this step's jobs only.
//!
//! The step's event lines are kept beside its output (`stepN.events`,
//! readable with `strata inspect events`), and their totals become metrics:
//! above all the L0 files each L0 merge took, which is what moves WAF from
//! one run to the next in study 5 (docs/benchmarks.md), and L0's file count
//! over time, the read side of that batch size.

use std::collections::BTreeMap;
use std::path::Path;

use strata::event_log::timeline::{parse, summarize};
use strata::event_log::EVENT_PREFIX;

/// Metrics from the LOG of the DB at `db`, copying its event lines to
/// `events_out`; empty when there is no LOG or it holds no events.
pub(crate) fn collect(db: &Path, events_out: &Path) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    let Ok(bytes) = std::fs::read(db.join("LOG")) else {
        return m;
    };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(EVENT_PREFIX)).collect();
    if lines.is_empty() {
        return m;
    }
    // Diagnostic only: a failed copy loses the file, not the step.
    let _ = std::fs::write(events_out, lines.join("\n") + "\n");
    let s = summarize(&parse(&text));
    m.insert("flush_jobs".into(), s.flushes as f64);
    m.insert(
        "compaction_jobs".into(),
        s.by_reason.values().map(|r| r.0).sum::<u64>() as f64,
    );
    m.insert("trivial_move_files".into(), s.moves.0 as f64);
    m.insert("l0_merges".into(), s.l0_batches.len() as f64);
    if !s.l0_batches.is_empty() {
        let total: usize = s.l0_batches.iter().sum();
        m.insert(
            "l0_files_per_merge".into(),
            total as f64 / s.l0_batches.len() as f64,
        );
    }
    if let Some(mean) = s.l0_files_mean() {
        m.insert("l0_files_mean".into(), mean);
    }
    if let Some(max) = s.l0_files_max() {
        m.insert("l0_files_max".into(), max as f64);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_strata_step_yields_job_metrics_and_its_events() {
        let dir = tempfile::tempdir().unwrap();
        let db_dir = dir.path().join("db");
        let opts = strata::Options::default()
            .write_buffer_size(64 << 10)
            .level0_file_num_compaction_trigger(2)
            .max_bytes_for_level_base(256 << 10)
            .target_file_size_base(32 << 10);
        {
            let db = strata::Db::open(&db_dir, opts).unwrap();
            for i in 0..5_000u64 {
                let k = (i * 7919) % 5_000;
                db.put(format!("key{k:08}").as_bytes(), [b'v'; 200])
                    .unwrap();
            }
            db.wait_for_compaction().unwrap();
        }
        let out = dir.path().join("step0.events");
        let m = collect(&db_dir, &out);
        assert!(m["flush_jobs"] >= 5.0, "{m:?}");
        assert!(m["compaction_jobs"] >= 1.0, "{m:?}");
        assert!(m["l0_merges"] >= 1.0, "{m:?}");
        assert!(m["l0_files_per_merge"] >= 2.0, "{m:?}");
        assert!(m["l0_files_mean"] > 0.0, "{m:?}");
        assert!(m["l0_files_max"] >= m["l0_files_mean"], "{m:?}");
        let kept = std::fs::read_to_string(&out).unwrap();
        assert!(kept.lines().all(|l| l.contains(EVENT_PREFIX)));
        assert!(kept.contains("\"compaction_finished\""));
    }

    #[test]
    fn no_log_or_no_events_gives_no_metrics() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("e");
        assert!(collect(dir.path(), &out).is_empty());
        std::fs::write(
            dir.path().join("LOG"),
            "2026/11/24-00:00:00.000000 opened\n",
        )
        .unwrap();
        assert!(collect(dir.path(), &out).is_empty());
        assert!(!out.exists());
    }
}
