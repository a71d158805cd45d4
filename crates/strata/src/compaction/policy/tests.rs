//! Each question of the policy asked of the three styles on one small
//! version: four L0 files (numbers 10..=13, 1 MiB each, 13 the newest), one
//! file in L4 (1 MiB) and one in L6 (10 MiB), all spanning "a".."z".

use super::*;
use crate::version::edit::{FileMetaData, VersionEdit};
use crate::version::testutil::file_meta;
use crate::version::VersionBuilder;

const MIB: u64 = 1 << 20;
/// The clock FIFO's TTL reads: no file has a newest key time, so none is
/// past its TTL.
const NOW: u64 = 1_700_000_000;
/// The styles in the order of the answers below.
const STYLES: [CompactionStyle; 3] = [
    CompactionStyle::Level,
    CompactionStyle::Universal,
    CompactionStyle::Fifo,
];

fn version() -> Version {
    let l0 = |n: u64| (0, file_meta(n, "a", "z", n, MIB));
    let deeper = |level: usize, n: u64, size: u64| (level, file_meta(n, "a", "z", 0, size));
    let new_files: Vec<(usize, FileMetaData)> = vec![
        l0(10),
        l0(11),
        l0(12),
        l0(13),
        deeper(4, 3, MIB),
        deeper(6, 2, 10 * MIB),
    ];
    let mut b = VersionBuilder::new(&Version::new(7));
    b.apply(&VersionEdit {
        new_files,
        ..VersionEdit::default()
    })
    .unwrap();
    b.build()
}

/// The default options under `style`, with FIFO's size limit (which only
/// FIFO reads) below the version's 15 MiB.
fn opts(style: CompactionStyle) -> Options {
    let mut o = Options {
        compaction_style: style,
        ..Options::default()
    };
    o.compaction_options_fifo.max_table_files_size = 12 * MIB;
    o
}

/// A task as `L<from>-><to> <reason> <input numbers by level>`.
fn show(t: Option<CompactionTask>) -> String {
    let Some(t) = t else {
        return "none".into();
    };
    let levels: Vec<String> = t
        .input_levels()
        .iter()
        .filter(|(_, files)| !files.is_empty())
        .map(|(l, files)| {
            let numbers: Vec<String> = files.iter().map(|f| f.number.to_string()).collect();
            format!("L{l}:{}", numbers.join(","))
        })
        .collect();
    format!(
        "L{}->L{} {} {}",
        t.level,
        t.output_level,
        t.reason.name(),
        levels.join(" ")
    )
}

/// `ask`'s answers under the three styles (in [`STYLES`] order), each with
/// [`opts`] changed by `set`.
fn per_style<T>(set: impl Fn(&mut Options), ask: impl Fn(CompactionPolicy<'_>) -> T) -> Vec<T> {
    STYLES
        .into_iter()
        .map(|style| {
            let mut o = opts(style);
            set(&mut o);
            ask(CompactionPolicy::of(&o))
        })
        .collect()
}

fn unchanged(_: &mut Options) {}

#[test]
fn automatic_picks_come_from_the_styles_picker() {
    let v = version();
    let busy = Busy::default();
    assert_eq!(
        per_style(unchanged, |p| show(p.pick_automatic(&v, &busy, NOW))),
        [
            "L0->L1 LevelL0FilesNum L0:13,12,11,10",
            "L0->L5 UniversalSizeRatio L0:13,12,11,10 L4:3",
            "L6->L6 FIFOMaxSize L6:2",
        ]
    );
    assert_eq!(
        per_style(
            |o| o.disable_auto_compactions = true,
            |p| show(p.pick_automatic(&v, &busy, NOW))
        ),
        ["none"; 3]
    );
}

#[test]
fn manual_compactions_go_level_by_level_only_under_leveled_compaction() {
    let v = version();
    let busy = Busy::default();
    assert_eq!(per_style(unchanged, |p| p.manual_passes(&v)), [6, 1, 1]);
    let empty = Version::new(7);
    assert_eq!(per_style(unchanged, |p| p.manual_passes(&empty)), [1, 1, 1]);
    let pick = |pass: usize, range| {
        per_style(unchanged, |p| {
            show(p.pick_manual(&v, &busy, pass, range, NOW))
        })
    };
    let universal_full = "L0->L6 ManualCompaction L0:13,12,11,10 L4:3 L6:2";
    let fifo = "L6->L6 FIFOMaxSize L6:2";
    let all = (None, None);
    assert_eq!(
        pick(0, all),
        [
            "L0->L1 ManualCompaction L0:13,12,11,10",
            universal_full,
            fifo
        ]
    );
    assert_eq!(
        pick(4, all),
        ["L4->L5 ManualCompaction L4:3", universal_full, fifo]
    );
    // Leveled compaction keeps to the range; universal compacts everything.
    assert_eq!(
        pick(0, (Some(&b"zz"[..]), None)),
        ["none", universal_full, fifo]
    );
    // A busy file holds the universal full compaction back.
    let mut busy = Busy::default();
    busy.files.insert(3);
    let o = opts(CompactionStyle::Universal);
    let p = CompactionPolicy::of(&o);
    assert_eq!(show(p.pick_manual(&v, &busy, 0, all, NOW)), "none");
}

#[test]
fn only_universal_compaction_leaves_outputs_and_flushes_uncompressed() {
    let v = version();
    // Universal's pick merges the L0 files and L4 into L5: the older run
    // (L6, 10 MiB) holds two thirds of the 15 MiB, so a
    // compression_size_percent of 66 or less leaves the output
    // uncompressed and one of 67 compresses it.
    let universal = opts(CompactionStyle::Universal);
    let task = CompactionPolicy::of(&universal)
        .pick_automatic(&v, &Busy::default(), NOW)
        .unwrap();
    assert_eq!(task.reason, CompactionReason::UniversalSizeRatio);
    for (percent, universal) in [(-1, true), (50, false), (66, false), (67, true)] {
        let set =
            |o: &mut Options| o.compaction_options_universal.compression_size_percent = percent;
        assert_eq!(
            per_style(set, |p| p.output_compression(&v, &task)
                != CompressionType::None),
            [true, universal, true],
            "{percent}"
        );
    }
    // Flushes compress unless a percent is set, whatever it is.
    for (percent, universal) in [(-1, true), (0, false), (100, false)] {
        let set =
            |o: &mut Options| o.compaction_options_universal.compression_size_percent = percent;
        assert_eq!(
            per_style(set, |p| p.flush_compression() != CompressionType::None),
            [true, universal, true],
            "{percent}"
        );
    }
}

#[test]
fn only_leveled_compaction_cuts_files_at_grandparent_overlap() {
    let cut = |p: CompactionPolicy<'_>| p.file_cut().map(|c| (c.max_compaction_bytes, c.dynamic));
    // max_compaction_bytes=0 (the default) stands for 25 x
    // target_file_size_base.
    let default = Some((25 * (64 << 20), true));
    assert_eq!(per_style(unchanged, cut), [default, None, None]);
    let set = |o: &mut Options| {
        o.max_compaction_bytes = 1000;
        o.level_compaction_dynamic_file_size = false;
    };
    assert_eq!(per_style(set, cut), [Some((1000, false)), None, None]);
}

#[test]
fn only_leveled_compaction_reports_pending_compaction_bytes() {
    let v = version();
    let leveled = leveled::estimated_pending_compaction_bytes(&v, &opts(CompactionStyle::Level));
    // Four L0 files reach the trigger: all of L0 is pending at least.
    assert!(leveled >= 4 * MIB, "{leveled}");
    assert_eq!(
        per_style(unchanged, |p| p.pending_compaction_bytes(&v)),
        [leveled, 0, 0]
    );
}

#[test]
fn universal_counts_sorted_runs_toward_the_l0_triggers() {
    let v = version();
    assert_eq!(per_style(unchanged, |p| p.l0_trigger_count(&v)), [4, 6, 4]);
}

/// FIFO deletes files only past its size limit, so no L0 count may slow or
/// stop its writers; the other styles raise triggers below the compaction
/// trigger (4) to it, as RocksDB's SanitizeOptions does.
#[test]
fn fifo_never_stalls_on_l0_and_the_others_use_the_sanitized_triggers() {
    let at = |p: CompactionPolicy<'_>| (p.l0_slowdown_at(), p.l0_stop_at());
    let never = (usize::MAX, usize::MAX);
    assert_eq!(per_style(unchanged, at), [(20, 36), (20, 36), never]);
    let set = |o: &mut Options| {
        o.level0_slowdown_writes_trigger = 2;
        o.level0_stop_writes_trigger = 6;
    };
    assert_eq!(per_style(set, at), [(4, 6), (4, 6), never]);
}

#[test]
fn only_fifo_has_ttl_compactions_and_refuses_blob_files() {
    let rules = |p: CompactionPolicy<'_>| (p.default_ttl(), p.ttl_compactions(), p.blob_files());
    assert_eq!(
        per_style(unchanged, rules),
        [
            (0, false, true),
            (0, false, true),
            (30 * 24 * 3600, true, false)
        ]
    );
}

/// Two L6 tables, the first linked to blob file 5 (90% garbage), the second
/// to the newer file 6: the leveled picker has nothing to do, and past the
/// force threshold the background still has a compaction to run, which
/// `rocksdb.compaction-pending` reports.
#[test]
fn blob_garbage_past_the_force_threshold_is_scheduled_after_the_automatic_pick() {
    use crate::version::edit::{BlobFileAddition, BlobFileGarbage};
    let linked = |n: u64, lo: &str, hi: &str, blob: u64| {
        let mut f = file_meta(n, lo, hi, 0, MIB);
        f.oldest_blob_file = blob;
        (6, f)
    };
    let blob = |number: u64| BlobFileAddition {
        number,
        total_blob_count: 100,
        total_blob_bytes: 100_000,
        checksum: 0,
    };
    let mut b = VersionBuilder::new(&Version::new(7));
    b.apply(&VersionEdit {
        new_files: vec![linked(20, "a", "m", 5), linked(21, "n", "z", 6)],
        blob_file_additions: vec![blob(5), blob(6)],
        blob_file_garbage: vec![BlobFileGarbage {
            number: 5,
            garbage_blob_count: 90,
            garbage_blob_bytes: 90_000,
        }],
        ..VersionEdit::default()
    })
    .unwrap();
    let v = b.build();
    let busy = Busy::default();
    let with = |force: f64, disabled: bool| {
        let mut o = opts(CompactionStyle::Level);
        o.enable_blob_files = true;
        o.enable_blob_garbage_collection = true;
        o.blob_garbage_collection_age_cutoff = 0.5;
        o.blob_garbage_collection_force_threshold = force;
        o.disable_auto_compactions = disabled;
        o
    };
    let o = with(0.5, false);
    let p = CompactionPolicy::of(&o);
    assert_eq!(show(p.pick_automatic(&v, &busy, NOW)), "none");
    assert_eq!(
        show(p.pick_scheduled(&v, &busy, NOW)),
        "L6->L6 ForcedBlobGC L6:20"
    );
    for o in [with(0.95, false), with(0.5, true)] {
        let p = CompactionPolicy::of(&o);
        assert_eq!(show(p.pick_scheduled(&v, &busy, NOW)), "none");
    }
}
