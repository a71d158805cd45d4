//! Reads a LOG's `EVENT_LOG_v1` lines back into jobs: the reader beside
//! the writer in `event_log/mod.rs`. It takes RocksDB's LOGs as well as
//! Strata's (the events are RocksDB's), so one workload's runs on the two
//! engines can be compared job by job: which ran, when, how many L0 files
//! each merge took, what each wrote. `strata inspect events` prints it;
//! the lab sums it into each run's metrics.

use std::collections::BTreeMap;

use serde_json::Value;

/// What kind of job an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Memtables written to L0.
    Flush,
    /// A merge of table files.
    Compaction,
    /// Files moved to another level unchanged.
    TrivialMove,
}

impl Kind {
    /// Short name: `flush`, `compaction`, `move`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Flush => "flush",
            Kind::Compaction => "compaction",
            Kind::TrivialMove => "move",
        }
    }
}

/// One job, put together from its events.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// The events' `job`.
    pub id: u64,
    /// Flush, compaction or trivial move.
    pub kind: Kind,
    /// Flush or compaction reason.
    pub reason: String,
    /// `time_micros` of the start event.
    pub start_us: u64,
    /// `time_micros` of the finish event (`None`: the LOG ends first).
    pub end_us: Option<u64>,
    /// Input files per level, levels with none left out (flushes: none).
    pub inputs: Vec<(usize, usize)>,
    /// Memtables a flush wrote.
    pub memtables: u64,
    /// Bytes of input files (compactions and moves).
    pub input_bytes: u64,
    /// Level written to (`None` until a compaction finishes).
    pub output_level: Option<usize>,
    /// Tables written.
    pub output_files: u64,
    /// Bytes of tables written (moves: bytes moved).
    pub output_bytes: u64,
    /// CPU time of a compaction, microseconds.
    pub cpu_us: Option<u64>,
    /// Files per level once the job was installed.
    pub lsm_after: Option<Vec<u64>>,
}

/// The jobs of a LOG, in start order, and how many `EVENT_LOG_v1` lines
/// were not JSON (a LOG cut off mid-line).
#[derive(Debug, Default)]
pub struct Timeline {
    /// Jobs by start time.
    pub jobs: Vec<Job>,
    /// Event lines that did not parse.
    pub skipped: usize,
}

fn u(e: &Value, k: &str) -> u64 {
    e[k].as_u64().unwrap_or(0)
}

/// Reads the jobs out of a LOG's text.
pub fn parse(text: &str) -> Timeline {
    let mut t = Timeline::default();
    // Open jobs by id; an id is reused by RocksDB's file purges, never by
    // another flush or compaction.
    let mut open: BTreeMap<u64, Job> = BTreeMap::new();
    let mut done: Vec<Job> = Vec::new();
    for line in text.lines() {
        let Some((_, json)) = line.split_once("EVENT_LOG_v1 ") else {
            continue;
        };
        let Ok(e) = serde_json::from_str::<Value>(json) else {
            t.skipped += 1;
            continue;
        };
        let (id, time) = (u(&e, "job"), u(&e, "time_micros"));
        let lsm = e["lsm_state"]
            .as_array()
            .map(|a| a.iter().map(|v| v.as_u64().unwrap_or(0)).collect());
        let blank = |kind, reason: &str| Job {
            id,
            kind,
            reason: reason.to_string(),
            start_us: time,
            end_us: None,
            inputs: Vec::new(),
            memtables: 0,
            input_bytes: 0,
            output_level: None,
            output_files: 0,
            output_bytes: 0,
            cpu_us: None,
            lsm_after: None,
        };
        match e["event"].as_str().unwrap_or("") {
            "flush_started" => {
                let mut j = blank(Kind::Flush, e["flush_reason"].as_str().unwrap_or("?"));
                j.memtables = u(&e, "num_memtables");
                j.output_level = Some(0);
                open.insert(id, j);
            }
            "compaction_started" => {
                let mut j = blank(
                    Kind::Compaction,
                    e["compaction_reason"].as_str().unwrap_or("?"),
                );
                if let Some(fields) = e.as_object() {
                    for (k, v) in fields {
                        let level = k.strip_prefix("files_L").and_then(|l| l.parse().ok());
                        let n = v.as_array().map_or(0, Vec::len);
                        if let (Some(level), true) = (level, n > 0) {
                            j.inputs.push((level, n));
                        }
                    }
                }
                j.inputs.sort_unstable();
                j.input_bytes = u(&e, "input_data_size");
                open.insert(id, j);
            }
            "table_file_creation" => {
                if let Some(j) = open.get_mut(&id) {
                    j.output_files += 1;
                    j.output_bytes += u(&e, "file_size");
                }
            }
            "flush_finished" => {
                if let Some(mut j) = open.remove(&id) {
                    j.end_us = Some(time);
                    j.lsm_after = lsm;
                    done.push(j);
                }
            }
            "compaction_finished" => {
                if let Some(mut j) = open.remove(&id) {
                    j.end_us = Some(time);
                    j.output_level = e["output_level"].as_u64().map(|l| l as usize);
                    // The job's own total, which counts files whose
                    // creation lines a LOG cut short may lack.
                    j.output_files = u(&e, "num_output_files");
                    j.output_bytes = u(&e, "total_output_size");
                    j.cpu_us = e["compaction_time_cpu_micros"].as_u64();
                    j.lsm_after = lsm;
                    done.push(j);
                }
            }
            "trivial_move" => {
                let mut j = blank(Kind::TrivialMove, "TrivialMove");
                j.end_us = Some(time);
                j.output_level = e["destination_level"].as_u64().map(|l| l as usize);
                j.output_files = u(&e, "files");
                j.input_bytes = u(&e, "total_files_size");
                j.output_bytes = j.input_bytes;
                j.lsm_after = lsm;
                done.push(j);
            }
            _ => {}
        }
    }
    done.extend(open.into_values());
    done.sort_by_key(|j| (j.start_us, j.id));
    t.jobs = done;
    t
}

/// Totals over a timeline.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Summary {
    /// Flush jobs finished.
    pub flushes: u64,
    /// Bytes they wrote.
    pub flush_bytes: u64,
    /// Per compaction reason: jobs, input bytes, output bytes, wall micros.
    pub by_reason: BTreeMap<String, (u64, u64, u64, u64)>,
    /// Trivial moves and the bytes they moved.
    pub moves: (u64, u64),
    /// L0 files taken by each compaction that read L0, in order.
    pub l0_batches: Vec<usize>,
    /// L0's file count after each finished job that logged its
    /// `lsm_state`, as (`time_micros` of the finish, files), in time order.
    pub l0_after: Vec<(u64, u64)>,
}

impl Summary {
    /// Bytes all finished compactions wrote.
    pub fn compaction_bytes(&self) -> u64 {
        self.by_reason.values().map(|r| r.2).sum()
    }

    /// RocksDB's W-Amp: flush and compaction bytes written over flushed
    /// bytes (`None` before any flush).
    pub fn w_amp(&self) -> Option<f64> {
        (self.flush_bytes > 0)
            .then(|| (self.flush_bytes + self.compaction_bytes()) as f64 / self.flush_bytes as f64)
    }

    /// L0's file count averaged over time, from the first finished job to
    /// the last (each count holds until the next job changes it). It is
    /// what a point lookup may have to check besides one file per deeper
    /// level, and the other side of the L0 batch size: an engine whose L0
    /// merges wait for more files rewrites less and keeps more in L0
    /// meanwhile. `None` with fewer than two jobs or no time between them.
    pub fn l0_files_mean(&self) -> Option<f64> {
        let (first, last) = (self.l0_after.first()?.0, self.l0_after.last()?.0);
        let area: u64 = self
            .l0_after
            .windows(2)
            .map(|w| w[0].1 * (w[1].0 - w[0].0))
            .sum();
        (last > first).then(|| area as f64 / (last - first) as f64)
    }

    /// The most files L0 held after any job (`None` without jobs).
    pub fn l0_files_max(&self) -> Option<u64> {
        self.l0_after.iter().map(|p| p.1).max()
    }
}

/// Sums the finished jobs.
pub fn summarize(t: &Timeline) -> Summary {
    let mut s = Summary::default();
    for j in t.jobs.iter().filter(|j| j.end_us.is_some()) {
        if let (Some(end), Some(&l0)) = (j.end_us, j.lsm_after.as_ref().and_then(|l| l.first())) {
            s.l0_after.push((end, l0));
        }
        match j.kind {
            Kind::Flush => {
                s.flushes += 1;
                s.flush_bytes += j.output_bytes;
            }
            Kind::Compaction => {
                let r = s.by_reason.entry(j.reason.clone()).or_default();
                r.0 += 1;
                r.1 += j.input_bytes;
                r.2 += j.output_bytes;
                r.3 += j.end_us.unwrap_or(j.start_us) - j.start_us;
                if let Some((0, n)) = j.inputs.first() {
                    s.l0_batches.push(*n);
                }
            }
            Kind::TrivialMove => {
                s.moves.0 += j.output_files;
                s.moves.1 += j.output_bytes;
            }
        }
    }
    s.l0_after.sort_by_key(|p| p.0);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as RocksDB 10.4 writes them (trimmed of fields the reader
    /// ignores), with a torn last line.
    const ROCKSDB_LOG: &str = include_str!("testdata/rocksdb-events.LOG");

    #[test]
    fn a_rocksdb_log_reads_into_jobs() {
        let t = parse(ROCKSDB_LOG);
        assert_eq!(t.skipped, 1);
        let ids: Vec<u64> = t.jobs.iter().map(|j| j.id).collect();
        assert_eq!(ids, [2, 6, 7, 9, 10]);
        let c = &t.jobs[1];
        assert_eq!(c.kind, Kind::Compaction);
        assert_eq!(c.inputs, [(0, 4), (1, 1)]);
        assert_eq!(
            (c.output_level, c.output_files, c.output_bytes),
            (Some(1), 3, 170_000_000)
        );
        assert_eq!(c.cpu_us, Some(1_500_000));
        assert_eq!(c.lsm_after.as_deref(), Some(&[1, 3, 0, 0, 0, 0, 0][..]));
        assert_eq!(t.jobs[2].output_bytes, 36_000_000);
        assert_eq!(t.jobs[4].end_us, None);
        let s = summarize(&t);
        assert_eq!((s.flushes, s.flush_bytes), (2, 72_000_000));
        assert_eq!(s.l0_batches, [4]);
        assert_eq!(s.moves, (1, 60_000_000));
        // (72 + 170) / 72
        assert!((s.w_amp().unwrap() - 242.0 / 72.0).abs() < 1e-9);
        // L0 after each job: 1 file at 1.91 s, 5 at 3.01 s, 1 at 4.00 s.
        assert_eq!(s.l0_after, [(1_910_000, 1), (3_010_000, 5), (4_000_000, 1)]);
        let mean = (1.0 * 1_100_000.0 + 5.0 * 990_000.0) / 2_090_000.0;
        assert!((s.l0_files_mean().unwrap() - mean).abs() < 1e-9);
        assert_eq!(s.l0_files_max(), Some(5));
    }

    #[test]
    fn l0_files_mean_weights_each_count_by_how_long_it_held() {
        let s = Summary {
            // 1 file for 10 us, 3 for 20 us, then 0 at the end.
            l0_after: vec![(100, 1), (110, 3), (130, 0)],
            ..Summary::default()
        };
        assert!((s.l0_files_mean().unwrap() - 70.0 / 30.0).abs() < 1e-9);
        assert_eq!(s.l0_files_max(), Some(3));
        let one = Summary {
            l0_after: vec![(100, 4)],
            ..Summary::default()
        };
        assert_eq!(one.l0_files_mean(), None);
        assert_eq!(Summary::default().l0_files_max(), None);
    }
}
