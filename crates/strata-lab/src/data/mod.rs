//! The data stage: the result rows a run writes and reads back
//! ([`results`]), the figures derived from a benchmark's output
//! ([`derive`]) and the composite score ([`score`]), their summaries
//! across repeats ([`aggregate`], [`stats`]); how numbers are written
//! ([`format`]), the metric registry ([`metrics`]), the rows skipped
//! for a flag their engine lacks ([`skipped`]) and the statistics two runs
//! fill ([`parity`]). Uses the study stage only.

pub(crate) mod aggregate;
pub(crate) mod derive;
pub(crate) mod format;
pub(crate) mod metrics;
pub(crate) mod parity;
pub mod results;
pub(crate) mod score;
pub(crate) mod skipped;
pub(crate) mod stats;
