//! The run stage: a plan's jobs executed as benchmark processes
//! ([`runner`], [`process`]) on the engines that answer a probe
//! ([`engines`], LevelDB's own db_bench in [`leveldb`]) with the options
//! of `lab run` ([`options`]); the study directory's files ([`layout`]),
//! the host they ran on ([`host`]), more repeats for undecided claims
//! ([`adaptive`]), the job order and the settle step
//! between jobs ([`hygiene`]), the options each engine opened with
//! ([`effective`]), the engine LOG read after each step
//! ([`joblog`]), and a study split across hosts and merged back
//! ([`distributed`]). Uses the study and data stages.

pub(crate) mod adaptive;
pub(crate) mod distributed;
pub(crate) mod effective;
pub(crate) mod engines;
pub(crate) mod host;
pub(crate) mod hygiene;
pub(crate) mod joblog;
pub(crate) mod layout;
pub(crate) mod leveldb;
pub(crate) mod options;
pub(crate) mod process;
pub(crate) mod runner;
