//! The data stage: the result rows a run writes and reads back
//! ([`results`]), the figures derived from a benchmark's output
//! ([`derive`]), and their summaries across repeats ([`aggregate`],
//! [`stats`]). Uses the study stage only.

pub(crate) mod aggregate;
pub(crate) mod derive;
pub mod results;
pub(crate) mod skipped;
pub(crate) mod stats;
