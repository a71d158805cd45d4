//! Golden tests: inputs chosen so that RocksDB 7.8.3's own arithmetic gives
//! exactly the numbers db_bench printed in the captured samples.

use super::*;

const STALLS: &str = include_str!("../../../testdata/stats/db_bench_7.8.3_stalls.txt");
const LARGE: &str = include_str!("../../../testdata/stats/db_bench_7.8.3_large.txt");
const SMALL: &str = include_str!("../../../testdata/stats/db_bench_7.8.3_small.txt");

const MB_U: f64 = 1_048_576.0;
const FLUSHED: u64 = 13_554_708;

#[allow(clippy::too_many_arguments)]
fn row(
    files: u64,
    size: u64,
    score: f64,
    rn: u64,
    rnp1: u64,
    write: u64,
    micros: u64,
    cpu: u64,
    count: u64,
    key_in: u64,
    key_drop: u64,
) -> LevelStatsRow {
    LevelStatsRow {
        files,
        size_bytes: size,
        score,
        read_bytes_n: rn,
        read_bytes_np1: rnp1,
        write_bytes: write,
        comp_micros: micros,
        comp_cpu_micros: cpu,
        comp_count: count,
        num_input_records: key_in,
        num_dropped_records: key_drop,
        ..LevelStatsRow::default()
    }
}

fn stalls_sample_input() -> CompactionStatsInput {
    let l0 = row(1, 237_793, 0.2, 0, 0, FLUSHED, 636_000, 120_000, 57, 0, 0);
    let l1 = row(
        5, 1_946_000, 0.9, 13_000_000, 20_276_000, 31_450_000, 1_027_000, 360_000, 14, 489_500,
        24_900,
    );
    let l2 = row(
        20, 7_200_000, 0.3, 6_900_000, 7_180_000, 11_750_000, 420_000, 120_000, 13, 211_500, 29_931,
    );
    let interval = row(
        0,
        0,
        0.0,
        (8.966 * MB_U) as u64,
        0,
        (9.102 * MB_U) as u64,
        360_000,
        100_000,
        11,
        139_500,
        14_200,
    );
    let mut low = LevelStatsRow::new("Low");
    low.add(&l1);
    low.add(&l2);
    low.files = 0;
    low.size_bytes = 0;
    let mut high = LevelStatsRow::new("High");
    high.add(&l0);
    high.files = 0;
    high.size_bytes = 0;
    let sample_cache_lines: Vec<String> = STALLS
        .lines()
        .filter(|l| l.starts_with("Block cache "))
        .map(|l| format!("{l}\n"))
        .collect();
    CompactionStatsInput {
        cf_name: "default".to_string(),
        levels: vec![l0, l1, l2, LevelStatsRow::new("L3")],
        interval,
        priorities: vec![low, high],
        flush_bytes: FLUSHED,
        interval_flush_bytes: 1_190_000,
        uptime_secs: 3.601,
        interval_secs: 0.565,
        stalls: StallCounts {
            level0_slowdown: 25,
            level0_slowdown_with_compaction: 10,
            memtable_compaction: 7,
            ..StallCounts::default()
        },
        interval_stall_count: 3,
        block_cache_lines: sample_cache_lines,
        ..CompactionStatsInput::default()
    }
}

/// The sample's text from the first `** Compaction Stats` to the `** File
/// Read Latency Histogram` heading, with the leading blank line RocksDB's
/// property string starts with.
fn sample_cf_section(sample: &str) -> String {
    let start = sample.find("** Compaction Stats").unwrap_or(0);
    let heading = "** File Read Latency Histogram By Level [default] **\n";
    let end = sample
        .find(heading)
        .map_or(sample.len(), |i| i + heading.len());
    format!("\n{}", &sample[start..end])
}

#[test]
fn cf_stats_match_rocksdb_7_8_3_byte_for_byte() {
    let ours = format_cf_stats(&stalls_sample_input());
    let expect = sample_cf_section(STALLS);
    for (i, (o, e)) in ours.lines().zip(expect.lines()).enumerate() {
        assert_eq!(o, e, "line {i}");
    }
    assert_eq!(ours, expect);
}

#[test]
fn empty_db_cf_stats_match_sample() {
    let input = CompactionStatsInput {
        cf_name: "default".to_string(),
        uptime_secs: 0.1,
        interval_secs: 0.1,
        block_cache_lines: SMALL
            .lines()
            .filter(|l| l.starts_with("Block cache "))
            .map(|l| format!("{l}\n"))
            .collect(),
        ..CompactionStatsInput::default()
    };
    assert_eq!(format_cf_stats(&input), sample_cf_section(SMALL));
}

#[test]
fn db_stats_match_rocksdb_7_8_3_byte_for_byte() {
    let now = DbStatsCounters {
        user_bytes_written: 26_200_000,
        keys_written: 200_000,
        write_self: 200_000,
        write_other: 0,
        wal_bytes: 26_200_000,
        wal_synced: 0,
        write_with_wal: 200_000,
        write_stall_micros: 967_957,
    };
    let interval_bytes = 14_722 * 131;
    let before = DbStatsCounters {
        user_bytes_written: now.user_bytes_written - interval_bytes,
        keys_written: 200_000 - 14_722,
        write_self: 200_000 - 14_722,
        write_other: 0,
        wal_bytes: now.wal_bytes - interval_bytes,
        wal_synced: 0,
        write_with_wal: 200_000 - 14_722,
        write_stall_micros: 967_957 - 30_300,
    };
    let ours = format_db_stats(&DbStatsInput {
        uptime_secs: 3.601,
        interval_secs: 0.566,
        cumulative: now,
        at_previous_dump: before,
    });
    let start = STALLS.find("** DB Stats **").unwrap_or(0);
    let end = STALLS.find("\n\nSTATISTICS:").unwrap_or(STALLS.len());
    let expect = format!("\n{}\n", &STALLS[start..end]);
    assert_eq!(ours, expect);
}

#[test]
fn large_values_row_matches_sample() {
    let mut r = row(
        9,
        216_929_402,
        0.0,
        508_559_360,
        304_506_470,
        742_916_096,
        4_880_000,
        2_440_000,
        5,
        200_100,
        17_500,
    );
    r.files_being_compacted = 9;
    r.level = "L1".to_string();
    let w_amp = crate::stats::waf::rocksdb_level_w_amp(1, &r, 0);
    let line = format_level_row(&r, w_amp);
    let expect = LARGE
        .lines()
        .find(|l| l.starts_with("  L1 "))
        .map(|l| format!("{l}\n"))
        .unwrap_or_default();
    assert_eq!(line, expect);
}

#[test]
fn headers_and_dashes_match_every_sample() {
    for sample in [STALLS, LARGE, SMALL] {
        for group in ["Level", "Priority"] {
            let h = format_table_header("default", group);
            assert!(sample.contains(&h[1..]), "{group} header not in sample");
        }
    }
}

#[test]
fn inactive_levels_are_skipped_and_sum_adds_active_ones() {
    let input = stalls_sample_input();
    let text = format_cf_stats(&input);
    assert!(!text.contains("  L3 "));
    let sum = input.sum_row();
    assert_eq!(sum.files, 26);
    assert_eq!(sum.comp_count, 84);
    assert_eq!(sum.written_bytes(), FLUSHED + 31_450_000 + 11_750_000);
}

#[test]
fn blob_columns_and_space_amp() {
    let mut l0 = LevelStatsRow::new("L0");
    l0.files = 1;
    l0.write_blob_bytes = 3 << 30;
    l0.write_bytes = 1 << 30;
    l0.comp_micros = 1_000_000;
    let input = CompactionStatsInput {
        cf_name: "default".to_string(),
        levels: vec![l0],
        flush_bytes: 4 << 30,
        blob_file_count: 37,
        blob_total_bytes: 3 << 30,
        blob_garbage_bytes: 1 << 30,
        uptime_secs: 1.0,
        interval_secs: 1.0,
        ..CompactionStatsInput::default()
    };
    let text = format_cf_stats(&input);
    assert!(text.contains(
        "Blob file count: 37, total size: 3.0 GB, garbage size: 1.0 GB, space amp: 1.5\n"
    ));
    let l0_line = text
        .lines()
        .find(|l| l.starts_with("  L0 "))
        .unwrap_or_default();
    assert!(l0_line.ends_with("      0.0       3.0"), "{l0_line}");
    // W-Amp = (1 + 3) GB / 4 GB flushed.
    assert!(l0_line.contains("   1.0 "), "{l0_line}");
    assert!(text.contains("Cumulative compaction: 4.00 GB write,"));
}

#[test]
fn stall_total_skips_with_compaction_subsets() {
    let s = StallCounts {
        level0_slowdown: 25,
        level0_slowdown_with_compaction: 10,
        memtable_compaction: 7,
        ..StallCounts::default()
    };
    assert_eq!(s.total(), 32);
    let line = s.format_line(3);
    assert!(STALLS.contains(&line));
}

#[test]
fn since_gives_interval_counters() {
    let input = stalls_sample_input();
    let now = input.sum_row();
    let mut before = now.clone();
    before.write_bytes -= 1000;
    before.comp_count -= 3;
    before.num_input_records += 5; // counter went "backwards": saturates
    let d = now.since(&before);
    assert_eq!(d.write_bytes, 1000);
    assert_eq!(d.comp_count, 3);
    assert_eq!(d.num_input_records, 0);
    assert_eq!(d.read_bytes_n, 0);
    assert_eq!(d.files, now.files);
}
