//! `strata inspect events LOG`: the flush and compaction jobs of a LOG, one
//! line each, from its `EVENT_LOG_v1` lines (read by
//! `strata::event_log::timeline`). A RocksDB LOG reads the same way as
//! Strata's, so the two engines' runs of one workload can be laid side by
//! side.

use std::io::Write;
use std::path::Path;

use serde_json::{json, Value};
use strata::event_log::timeline::{parse, summarize, Kind, Timeline};

/// Reads and parses a LOG file.
///
/// # Errors
/// The file cannot be read.
pub fn read(path: &Path) -> anyhow::Result<Timeline> {
    let bytes =
        std::fs::read(path).map_err(|e| anyhow::anyhow!("reading {}: {e}", path.display()))?;
    Ok(parse(&String::from_utf8_lossy(&bytes)))
}

fn mb(b: u64) -> String {
    format!("{:.1}", b as f64 / 1e6)
}

fn secs(us: u64) -> String {
    format!("{:.3}", us as f64 / 1e6)
}

/// Writes the timeline as a table and the summary after it.
///
/// # Errors
/// Writing to `out` fails.
pub fn write_text(t: &Timeline, out: &mut dyn Write) -> anyhow::Result<()> {
    let Some(t0) = t.jobs.iter().map(|j| j.start_us).min() else {
        writeln!(
            out,
            "No flush or compaction events (EVENT_LOG_v1 lines) in this LOG."
        )?;
        return Ok(());
    };
    writeln!(
        out,
        "Times in seconds from the first job; MB = 10^6 bytes; LSM = files per level after the job."
    )?;
    let header = [
        "start", "end", "job", "kind", "reason", "inputs", "out", "in MB", "out MB", "cpu s", "LSM",
    ];
    let mut rows: Vec<Vec<String>> = Vec::new();
    for j in &t.jobs {
        let inputs = match j.kind {
            Kind::Flush => format!("{} memtable(s)", j.memtables),
            Kind::TrivialMove => format!("{} file(s)", j.output_files),
            Kind::Compaction => j
                .inputs
                .iter()
                .map(|(l, n)| format!("L{l}:{n}"))
                .collect::<Vec<_>>()
                .join(" "),
        };
        rows.push(vec![
            secs(j.start_us - t0),
            j.end_us.map_or("-".into(), |e| secs(e - t0)),
            j.id.to_string(),
            j.kind.name().into(),
            j.reason.clone(),
            inputs,
            j.output_level.map_or("-".into(), |l| format!("L{l}")),
            if j.kind == Kind::Flush {
                "-".into()
            } else {
                mb(j.input_bytes)
            },
            if j.end_us.is_some() {
                mb(j.output_bytes)
            } else {
                "(running)".into()
            },
            j.cpu_us.map_or("-".into(), secs),
            j.lsm_after.as_ref().map_or("-".into(), |l| {
                l.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")
            }),
        ]);
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].len())
                .chain([header[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    // Text columns left-aligned, numbers right-aligned.
    let left = [
        false, false, false, true, true, true, true, false, false, false, true,
    ];
    let line = |cells: &[String]| -> String {
        cells
            .iter()
            .enumerate()
            .map(|(c, s)| {
                if left[c] {
                    format!("{s:<w$}", w = widths[c])
                } else {
                    format!("{s:>w$}", w = widths[c])
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let head: Vec<String> = header.iter().map(|s| s.to_string()).collect();
    writeln!(out, "{}", line(&head))?;
    for r in &rows {
        writeln!(out, "{}", line(r))?;
    }
    let s = summarize(t);
    writeln!(out)?;
    writeln!(
        out,
        "Flushes: {}, {} MB written",
        s.flushes,
        mb(s.flush_bytes)
    )?;
    let (jobs, written) = (
        s.by_reason.values().map(|r| r.0).sum::<u64>(),
        s.compaction_bytes(),
    );
    writeln!(out, "Compactions: {jobs}, {} MB written", mb(written))?;
    for (reason, (n, i, o, us)) in &s.by_reason {
        writeln!(
            out,
            "  {reason}: {n} job(s), {} MB in, {} MB out, {} s",
            mb(*i),
            mb(*o),
            secs(*us)
        )?;
    }
    writeln!(
        out,
        "Trivial moves: {} file(s), {} MB",
        s.moves.0,
        mb(s.moves.1)
    )?;
    if !s.l0_batches.is_empty() {
        let total: usize = s.l0_batches.iter().sum();
        writeln!(
            out,
            "L0 files per compaction reading L0: {} (mean {:.2})",
            s.l0_batches
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(" "),
            total as f64 / s.l0_batches.len() as f64
        )?;
    }
    if let (Some(mean), Some(max)) = (s.l0_files_mean(), s.l0_files_max()) {
        writeln!(
            out,
            "L0 files after each job, over time: mean {mean:.2}, max {max}"
        )?;
    }
    if let Some(w) = s.w_amp() {
        writeln!(
            out,
            "W-Amp (flush + compaction bytes written / flushed bytes): {w:.3}"
        )?;
    }
    let running = t.jobs.iter().filter(|j| j.end_us.is_none()).count();
    if running > 0 {
        writeln!(
            out,
            "{running} job(s) had not finished when the LOG ends; not counted above."
        )?;
    }
    if t.skipped > 0 {
        writeln!(
            out,
            "{} EVENT_LOG_v1 line(s) were not JSON and were skipped.",
            t.skipped
        )?;
    }
    Ok(())
}

/// Writes the timeline and summary as one JSON object.
///
/// # Errors
/// Writing to `out` fails.
pub fn write_json(t: &Timeline, out: &mut dyn Write) -> anyhow::Result<()> {
    let jobs: Vec<Value> = t
        .jobs
        .iter()
        .map(|j| {
            json!({
                "job": j.id,
                "kind": j.kind.name(),
                "reason": j.reason,
                "start_micros": j.start_us,
                "end_micros": j.end_us,
                "inputs": j.inputs.iter().map(|(l, n)| json!({"level": l, "files": n})).collect::<Vec<_>>(),
                "memtables": j.memtables,
                "input_bytes": j.input_bytes,
                "output_level": j.output_level,
                "output_files": j.output_files,
                "output_bytes": j.output_bytes,
                "cpu_micros": j.cpu_us,
                "lsm_after": j.lsm_after,
            })
        })
        .collect();
    let s = summarize(t);
    let by_reason: serde_json::Map<String, Value> = s
        .by_reason
        .iter()
        .map(|(k, (n, i, o, us))| {
            (
                k.clone(),
                json!({"jobs": n, "input_bytes": i, "output_bytes": o, "micros": us}),
            )
        })
        .collect();
    let v = json!({
        "jobs": jobs,
        "summary": {
            "flushes": s.flushes,
            "flush_bytes": s.flush_bytes,
            "compaction_bytes": s.compaction_bytes(),
            "compactions_by_reason": by_reason,
            "trivial_move_files": s.moves.0,
            "trivial_move_bytes": s.moves.1,
            "l0_batches": s.l0_batches,
            "l0_files_mean": s.l0_files_mean(),
            "l0_files_max": s.l0_files_max(),
            "w_amp": s.w_amp(),
        },
        "skipped_lines": t.skipped,
    });
    serde_json::to_writer_pretty(&mut *out, &v)?;
    writeln!(out)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reader's sample RocksDB LOG (strata::event_log::timeline).
    const ROCKSDB_LOG: &str =
        include_str!("../../../strata/src/event_log/testdata/rocksdb-events.LOG");

    #[test]
    fn text_output_is_stable() {
        let mut out = Vec::new();
        write_text(&parse(ROCKSDB_LOG), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let want = "\
Times in seconds from the first job; MB = 10^6 bytes; LSM = files per level after the job.
start    end  job  kind        reason             inputs         out  in MB     out MB  cpu s  LSM
0.000  0.910    2  flush       Write Buffer Full  1 memtable(s)  L0       -       36.0      -  1 0 0 0 0 0 0
1.000  3.000    6  compaction  LevelL0FilesNum    L0:4 L1:1      L1   180.0      170.0  1.500  1 3 0 0 0 0 0
1.500  2.010    7  flush       Write Buffer Full  1 memtable(s)  L0       -       36.0      -  5 1 0 0 0 0 0
4.000  4.000    9  move        TrivialMove        1 file(s)      L2    60.0       60.0      -  -
4.500      -   10  compaction  LevelMaxLevelSize  L1:1 L2:2      -      0.0  (running)      -  -

Flushes: 2, 72.0 MB written
Compactions: 1, 170.0 MB written
  LevelL0FilesNum: 1 job(s), 180.0 MB in, 170.0 MB out, 2.000 s
Trivial moves: 1 file(s), 60.0 MB
L0 files per compaction reading L0: 4 (mean 4.00)
L0 files after each job, over time: mean 2.89, max 5
W-Amp (flush + compaction bytes written / flushed bytes): 3.361
1 job(s) had not finished when the LOG ends; not counted above.
1 EVENT_LOG_v1 line(s) were not JSON and were skipped.
";
        assert_eq!(text, want);
    }

    #[test]
    fn json_output_parses_back() {
        let mut out = Vec::new();
        write_json(&parse(ROCKSDB_LOG), &mut out).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["jobs"].as_array().unwrap().len(), 5);
        assert_eq!(v["summary"]["compaction_bytes"], 170_000_000);
        assert_eq!(v["summary"]["l0_files_max"], 5);
        assert_eq!(v["skipped_lines"], 1);
    }

    #[test]
    fn a_log_without_events_says_so() {
        let mut out = Vec::new();
        write_text(&parse("2026/11/24-14:53:22.526293 opened\n"), &mut out).unwrap();
        assert!(String::from_utf8(out)
            .unwrap()
            .starts_with("No flush or compaction events"));
    }
}
