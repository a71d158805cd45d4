//! The judging stage: what a study's rows say. The study's own findings
//! checked against the data ([`findings`], with the statistics of
//! [`verdict`]), statements computed from the data ([`statements`]), Strata
//! against each other engine ([`versus`]), trade-off curves ([`tradeoff`]),
//! two runs of a study compared ([`compare`]), the facets charts and
//! statements are split into ([`facet`]), and the figures withheld as not
//! meaningful ([`guards`]). Uses the study and data stages; builds no report blocks.

pub(crate) mod compare;
pub(crate) mod facet;
pub(crate) mod findings;
pub(crate) mod guards;
pub(crate) mod statements;
pub(crate) mod tradeoff;
pub(crate) mod verdict;
pub(crate) mod versus;
