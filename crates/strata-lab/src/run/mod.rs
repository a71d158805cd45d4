//! The run stage: a plan's jobs executed as benchmark processes
//! ([`runner`], [`process`]), the host they ran on ([`host`]), the engine
//! LOG read after each step ([`joblog`]), and a study split across hosts and
//! merged back ([`distributed`]). Uses the study and data stages.

pub(crate) mod distributed;
pub(crate) mod host;
pub(crate) mod joblog;
pub(crate) mod process;
pub(crate) mod runner;
