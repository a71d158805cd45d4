//! Wall-clock time as the engine records it (table creation times, the
//! newest-entry times FIFO's TTL reads).

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch now (0 if the clock is before it).
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Microseconds since the Unix epoch now (0 if the clock is before it).
pub fn unix_micros() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}
