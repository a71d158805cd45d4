//! Metamorphic test (`strata_testkit::metamorphic`, after Pebble's): seeded
//! random sequences of puts, deletes, range deletions, merges, batches
//! across three families, snapshots, gets (plain and pinned), multi-gets,
//! prefix scans, bounded scans both ways,
//! long-lived iterators (seeks, next and prev), flushes, compactions,
//! reopens and checkpoints opened as DBs, each run on a new DB under
//! several drawn option sets. Every result must equal the model's, and so
//! be the same under every option set; a divergence fails with the
//! shortest reproducer shrinking found.
//!
//! The default run is 4 sequences x 300 operations x 4 option sets. The
//! long run (docs/reliability.md):
//! `STRATA_METAMORPHIC_SEQS=1000 STRATA_METAMORPHIC_OPTS=8 cargo test --release -p strata --test metamorphic -- --ignored --nocapture`
//! (`STRATA_METAMORPHIC_OPS` sets the operations per sequence, 500 by
//! default; `STRATA_METAMORPHIC_FIRST` the first sequence's seed, 1).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use strata_testkit::metamorphic::{check_sequence, OptionSet};
use strata_testkit::{env_u64, metamorphic::Op};

/// The kind of an operation: its variant's name.
fn kind(o: &Op) -> String {
    let text = format!("{o:?}");
    text.split([' ', '(', '{']).next().unwrap_or("").to_string()
}

/// What of each option set's features the long run's summary counts.
const FEATURES: [&str; 8] = [
    "kCompactionStyleUniversal",
    "kCompactionStyleFIFO",
    "enable_blob_files=true",
    "write_buffer_size=4096",
    "max_subcompactions",
    "use_direct_reads=true",
    "allow_mmap_reads=false",
    "bloom_bits_per_key",
];

#[test]
fn sequences_read_the_same_under_every_option_set() {
    let mut reads = 0;
    for seed in 1..=4 {
        reads += check_sequence(seed, 300, 4).unwrap_or_else(|report| panic!("{report}"));
    }
    assert!(reads > 1_000, "only {reads} reads compared");
}

/// The drawn option sets are valid, differ from one another and cover what
/// they claim to: every compaction style, blob files, the WAL off.
#[test]
fn option_sets_are_valid_and_varied() {
    let sets: Vec<OptionSet> = (0..64).map(|i| OptionSet::draw(i / 8, i % 8)).collect();
    for s in &sets {
        s.db_options().validate().unwrap();
    }
    let distinct: BTreeSet<&str> = sets.iter().map(|s| s.options.as_str()).collect();
    assert!(distinct.len() > 50, "{} distinct of 64", distinct.len());
    for needle in FEATURES {
        assert!(
            sets.iter().any(|s| s.options.contains(needle)),
            "no option set with {needle}"
        );
    }
    assert!(sets.iter().any(|s| s.disable_wal));
}

/// A generated sequence holds every kind of operation.
#[test]
fn sequences_hold_every_kind_of_operation() {
    let ops = strata_testkit::metamorphic::generate(1, 2_000);
    let kind = |o: &Op| {
        format!("{o:?}")
            .split([' ', '(', '{'])
            .next()
            .unwrap()
            .to_string()
    };
    let kinds: std::collections::BTreeSet<String> = ops.iter().map(kind).collect();
    for k in [
        "Write",
        "Batch",
        "Get",
        "Scan",
        "Snapshot",
        "ReleaseSnapshot",
        "IterOpen",
        "IterMove",
        "IterClose",
        "Flush",
        "Compact",
        "Reopen",
        "Checkpoint",
    ] {
        assert!(kinds.contains(k), "no {k} in {kinds:?}");
    }
}

#[test]
#[ignore = "long run: see the module docs"]
fn long_metamorphic_run() {
    let seqs = env_u64("STRATA_METAMORPHIC_SEQS", 1_000);
    let sets = env_u64("STRATA_METAMORPHIC_OPTS", 8);
    let nops = env_u64("STRATA_METAMORPHIC_OPS", 500) as usize;
    let first = env_u64("STRATA_METAMORPHIC_FIRST", 1);
    let start = Instant::now();
    let (mut reads, mut divergences) = (0u64, Vec::new());
    let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
    let mut features: BTreeMap<&str, u64> = BTreeMap::new();
    let mut wal_off = 0;
    for seed in first..first + seqs {
        for op in strata_testkit::metamorphic::generate(seed, nops) {
            *kinds.entry(kind(&op)).or_default() += 1;
        }
        for i in 0..sets {
            let set = OptionSet::draw(seed, i);
            for f in FEATURES.iter().filter(|f| set.options.contains(**f)) {
                *features.entry(f).or_default() += 1;
            }
            wal_off += u64::from(set.disable_wal);
        }
        match check_sequence(seed, nops, sets) {
            Ok(n) => reads += n,
            Err(report) => {
                eprintln!("{report}");
                divergences.push(seed);
            }
        }
        let done = seed - first + 1;
        if done.is_multiple_of(25) || done == seqs {
            eprintln!(
                "{done} sequences x {sets} option sets x {nops} operations, {reads} reads compared, {} divergences, {:.0} s",
                divergences.len(),
                start.elapsed().as_secs_f64()
            );
        }
    }
    eprintln!("operations by kind: {kinds:?}");
    eprintln!("option sets with: {features:?}, WAL off: {wal_off}");
    assert!(
        divergences.is_empty(),
        "sequences that diverged: {divergences:?}"
    );
}
