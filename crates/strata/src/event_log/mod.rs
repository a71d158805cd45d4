//! RocksDB's structured LOG events: one line `EVENT_LOG_v1 {json}` per
//! flush, compaction, table or blob file created or deleted, and recovery
//! (format in `docs/formats/log-events.md`).
//!
//! The event names and fields are RocksDB's (`EventHelpers`,
//! `FlushJob`, `CompactionJob`), so the scripts and log parsers people run
//! on RocksDB LOGs read Strata's too, and [`timeline`] reads either
//! engine's LOG back into jobs.

pub mod timeline;

use serde_json::Value;

use crate::sstable::TableInfo;
use crate::version::Version;

/// The marker RocksDB's event logger puts before the JSON object.
pub const EVENT_PREFIX: &str = "EVENT_LOG_v1 ";

/// One event: `time_micros`, `job` and `event` first, then the fields in
/// the order they were added (RocksDB's order, which readers need not rely
/// on: it is a JSON object).
#[derive(Debug, Clone)]
pub(crate) struct Event {
    fields: Vec<(String, Value)>,
}

impl Event {
    /// An event named `name` of background job `job`, stamped now.
    pub(crate) fn new(name: &str, job: u64) -> Self {
        Event::at(name, job, crate::clock::unix_micros())
    }

    /// An event stamped with `time_micros` (microseconds since the Unix
    /// epoch); tests use fixed times.
    pub(crate) fn at(name: &str, job: u64, time_micros: u64) -> Self {
        Event {
            fields: vec![
                ("time_micros".into(), time_micros.into()),
                ("job".into(), job.into()),
                ("event".into(), name.into()),
            ],
        }
    }

    /// Adds a field.
    pub(crate) fn with(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.fields.push((key.into(), value.into()));
        self
    }

    /// Adds a nested object.
    pub(crate) fn with_object(
        mut self,
        key: &'static str,
        fields: Vec<(&'static str, Value)>,
    ) -> Self {
        let map = fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect::<serde_json::Map<_, _>>();
        self.fields.push((key.into(), Value::Object(map)));
        self
    }

    /// The LOG text: `EVENT_LOG_v1 {"time_micros": ..., ...}`.
    pub(crate) fn to_line(&self) -> String {
        let mut s = String::from(EVENT_PREFIX);
        s.push('{');
        for (i, (k, v)) in self.fields.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            // Keys are fixed identifiers; values go through serde_json,
            // which escapes strings.
            s.push_str(&Value::from(k.as_str()).to_string());
            s.push_str(": ");
            s.push_str(&v.to_string());
        }
        s.push('}');
        s
    }
}

/// Files per level of `v`: RocksDB's `lsm_state` field.
pub(crate) fn lsm_state(v: &Version) -> Vec<u64> {
    v.levels.iter().map(|files| files.len() as u64).collect()
}

/// `table_file_creation` for table `number` as its builder finished it.
pub(crate) fn table_file_creation(job: u64, cf_name: &str, number: u64, info: &TableInfo) -> Event {
    let p = &info.properties;
    let avg = |total: u64| total.checked_div(p.num_entries).unwrap_or(0);
    Event::new("table_file_creation", job)
        .with("cf_name", cf_name)
        .with("file_number", number)
        .with("file_size", info.file_size)
        .with("smallest_seqno", info.smallest_seq)
        .with("largest_seqno", info.largest_seq)
        .with_object(
            "table_properties",
            vec![
                ("data_size", p.data_size.into()),
                ("index_size", p.index_size.into()),
                ("filter_size", p.filter_size.into()),
                ("raw_key_size", p.raw_key_size.into()),
                ("raw_average_key_size", avg(p.raw_key_size).into()),
                ("raw_value_size", p.raw_value_size.into()),
                ("raw_average_value_size", avg(p.raw_value_size).into()),
                ("num_data_blocks", p.num_data_blocks.into()),
                ("num_entries", p.num_entries.into()),
                ("num_deletions", p.num_deletions.into()),
                ("compression", compression_label(&p.compression_name).into()),
                ("column_family_name", cf_name.into()),
            ],
        )
}

/// RocksDB's compression name in events (`Snappy`, `NoCompression`, ...)
/// from the `kSnappyCompression` form the properties block stores.
pub(crate) fn compression_label(name: &str) -> String {
    let Some(codec) = name.strip_prefix('k') else {
        return name.into();
    };
    match codec.strip_suffix("Compression").unwrap_or(codec) {
        "No" => "NoCompression".into(),
        c => c.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_keep_their_order_and_strings_are_escaped() {
        let e = Event::at("flush_started", 7, 1_700_000_000_000_001)
            .with("num_memtables", 2u64)
            .with("flush_reason", "Manual \"Flush\"")
            .with("lsm_state", vec![1u64, 0, 3]);
        assert_eq!(
            e.to_line(),
            "EVENT_LOG_v1 {\"time_micros\": 1700000000000001, \"job\": 7, \"event\": \"flush_started\", \
             \"num_memtables\": 2, \"flush_reason\": \"Manual \\\"Flush\\\"\", \"lsm_state\": [1,0,3]}"
        );
    }

    #[test]
    fn an_event_line_is_valid_json_after_the_prefix() {
        let e = Event::at("x", 1, 2).with_object("table_properties", vec![("a", 1u64.into())]);
        let line = e.to_line();
        let json = line.strip_prefix(EVENT_PREFIX).unwrap();
        let v: Value = serde_json::from_str(json).unwrap();
        assert_eq!(v["table_properties"]["a"], 1);
        assert_eq!(v["event"], "x");
    }

    #[test]
    fn compression_labels_are_rocksdbs() {
        assert_eq!(compression_label("kSnappyCompression"), "Snappy");
        assert_eq!(compression_label("kNoCompression"), "NoCompression");
        assert_eq!(compression_label("kZSTD"), "ZSTD");
        assert_eq!(compression_label("kLZ4Compression"), "LZ4");
    }
}
