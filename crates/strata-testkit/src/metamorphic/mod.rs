//! Metamorphic testing, after Pebble's (`cockroachdb/pebble/metamorphic`):
//! one seeded random sequence of operations ([`Op`]: puts, deletes, range
//! deletions, merges, batches across families, snapshots, gets (plain and
//! pinned), multi-gets, prefix scans, bounded
//! scans both ways, long-lived iterators that seek and step both ways,
//! flushes, compactions, reopens and checkpoints opened as DBs) runs on a
//! new DB under each of several option sets ([`OptionSet`]: compaction
//! styles, tiny buffers, block sizes, compressions, filters, blob files,
//! caches, mapped, `pread` and direct reads, the WAL on or off,
//! subcompactions, ...). Every operation's result must equal the model's
//! ([`expected`]), and so be the same under every option set. A sequence
//! that diverges is shrunk ([`shrink`]) to a short [`reproducer`].
//!
//! - [`ops`]: the operations, as data; their `Debug` form is the
//!   reproducer.
//! - [`generate`]: the seeded generator.
//! - [`options`]: the option sets, drawn and kept when valid.
//! - [`expect`]: the model's results.
//! - [`run`]: the DB's results.
//! - [`shrink`]: divergence, shrinking and the reproducer.

pub mod expect;
pub mod generate;
pub mod ops;
pub mod options;
pub mod run;
pub mod shrink;

pub use expect::expected;
pub use generate::generate;
pub use ops::{Bytes, Move, Op, Out, PrefixScan, Range, Write, FAMILIES};
pub use options::OptionSet;
pub use run::run;
pub use shrink::{diverges, first_divergence, reproducer, shrink, Divergence};

/// Runs to shrink a divergence with, at most.
pub const SHRINK_BUDGET: usize = 400;

/// Runs sequence `seed` (`nops` operations) under option sets 0 to
/// `nsets - 1` ([`OptionSet::draw`]). Returns how many reads (operations
/// whose result is not a bare `Done`) were compared, or a report of the
/// first divergence: the seed, the option set, the shrunk reproducer.
///
/// # Errors
/// The report of a divergence.
pub fn check_sequence(seed: u64, nops: usize, nsets: u64) -> Result<u64, String> {
    let ops = generate(seed, nops);
    let want = expected(&ops);
    let reads = want.iter().filter(|o| **o != Out::Done).count() as u64;
    for i in 0..nsets {
        let set = OptionSet::draw(seed, i);
        let got = run(&ops, &set);
        if let Some(d) = first_divergence(&got, &want) {
            let small = shrink(&ops, d.index, &set, SHRINK_BUDGET);
            return Err(format!(
                "sequence {seed} ({nops} operations) diverges under option set {i} at operation {}: got {:?}, want {:?}\nshortest reproducer found:\n{}",
                d.index,
                d.got,
                d.want,
                reproducer(&small, &set)
            ));
        }
    }
    Ok(reads * nsets)
}
