//! Test double: an in-memory engine over a `BTreeMap`. Test builds only.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use super::{BatchOp, BenchEngine, BenchIter, EngineFactory, EngineSample, Move};
use crate::options_map::{OptionSetting, WriteOpts};

/// Shared map per path, so reopening sees earlier data (like a real DB).
#[derive(Default)]
pub struct MemoryFactory {
    /// Databases by path.
    pub dbs: Mutex<BTreeMap<std::path::PathBuf, Arc<MemoryEngine>>>,
    /// Option names the double refuses, to test unsupported-flag errors.
    pub unsupported: Vec<&'static str>,
    /// A write stall to simulate: every `.0`-th put sleeps `.1`.
    pub stall: Option<(u64, Duration)>,
}

/// The in-memory engine.
#[derive(Default)]
pub struct MemoryEngine {
    map: RwLock<BTreeMap<Vec<u8>, Vec<u8>>>,
    stall: Option<(u64, Duration)>,
    puts: AtomicU64,
    stalled_micros: AtomicU64,
}

impl EngineFactory for MemoryFactory {
    fn name(&self) -> &'static str {
        "Memory"
    }
    fn version(&self) -> String {
        "0.0.0".into()
    }
    fn open(
        &self,
        path: &Path,
        settings: &[OptionSetting],
    ) -> anyhow::Result<Arc<dyn BenchEngine>> {
        for s in settings {
            if self.unsupported.contains(&s.option) && s.value != "kCompactionStyleLevel" {
                anyhow::bail!("Not implemented: option {} is not supported yet", s.option);
            }
        }
        std::fs::create_dir_all(path)?;
        let mut dbs = self.dbs.lock().map_err(|_| anyhow::anyhow!("poisoned"))?;
        if !path.join("CURRENT").exists() {
            dbs.remove(path);
            std::fs::write(path.join("CURRENT"), b"MANIFEST-000001\n")?;
        }
        let db = dbs
            .entry(path.to_path_buf())
            .or_insert_with(|| {
                Arc::new(MemoryEngine {
                    stall: self.stall,
                    ..MemoryEngine::default()
                })
            })
            .clone();
        Ok(db)
    }
}

fn lock_err<T>(_: T) -> anyhow::Error {
    anyhow::anyhow!("lock poisoned")
}

impl BenchEngine for MemoryEngine {
    fn put(&self, key: &[u8], value: &[u8], wo: WriteOpts) -> anyhow::Result<()> {
        if wo.sync && wo.disable_wal {
            anyhow::bail!("Invalid argument: Sync writes has to enable WAL.");
        }
        if let Some((every, pause)) = self.stall {
            if (self.puts.fetch_add(1, Ordering::Relaxed) + 1).is_multiple_of(every.max(1)) {
                std::thread::sleep(pause);
                self.stalled_micros
                    .fetch_add(pause.as_micros() as u64, Ordering::Relaxed);
            }
        }
        self.map
            .write()
            .map_err(lock_err)?
            .insert(key.to_vec(), value.to_vec());
        Ok(())
    }
    fn delete(&self, key: &[u8], _wo: WriteOpts) -> anyhow::Result<()> {
        self.map.write().map_err(lock_err)?.remove(key);
        Ok(())
    }
    fn write_batch(&self, ops: &[BatchOp<'_>], wo: WriteOpts) -> anyhow::Result<()> {
        for op in ops {
            match op {
                BatchOp::Put(k, v) => self.put(k, v, wo)?,
                BatchOp::Delete(k) => self.delete(k, wo)?,
                BatchOp::DeleteRange(b, e) => {
                    let mut m = self.map.write().map_err(lock_err)?;
                    let doomed: Vec<Vec<u8>> = m
                        .range(b.to_vec()..e.to_vec())
                        .map(|(k, _)| k.clone())
                        .collect();
                    for k in doomed {
                        m.remove(&k);
                    }
                }
            }
        }
        Ok(())
    }
    fn get(&self, key: &[u8], _verify: bool) -> anyhow::Result<Option<usize>> {
        Ok(self.map.read().map_err(lock_err)?.get(key).map(Vec::len))
    }
    fn multi_get(
        &self,
        keys: &[&[u8]],
        _verify: bool,
        _batched: bool,
    ) -> anyhow::Result<Vec<Option<usize>>> {
        let map = self.map.read().map_err(lock_err)?;
        Ok(keys.iter().map(|k| map.get(*k).map(Vec::len)).collect())
    }
    fn iter(&self, _verify_checksums: bool) -> anyhow::Result<Box<dyn BenchIter + '_>> {
        let entries: Vec<(Vec<u8>, usize)> = self
            .map
            .read()
            .map_err(lock_err)?
            .iter()
            .map(|(k, v)| (k.clone(), v.len()))
            .collect();
        Ok(Box::new(MemIter { entries, pos: None }))
    }
    fn flush(&self) -> anyhow::Result<()> {
        Ok(())
    }
    fn compact_all(&self) -> anyhow::Result<()> {
        Ok(())
    }
    fn wait_for_compaction(&self) -> anyhow::Result<()> {
        Ok(())
    }
    fn property(&self, name: &str) -> Option<String> {
        match name {
            "rocksdb.stats" => {
                Some(include_str!("../../testdata/rocksdb-7.8.3/stats-benchmark.txt").into())
            }
            "rocksdb.levelstats" => {
                Some("Level Files Size(MB)\n--------------------\n  0        0        0\n".into())
            }
            _ => None,
        }
    }
    fn sample(&self) -> EngineSample {
        EngineSample {
            l0_files: Some(0),
            pending_compaction_bytes: None,
            stall_micros: Some(self.stalled_micros.load(Ordering::Relaxed)),
        }
    }
    fn statistics_dump(&self) -> Option<String> {
        Some("rocksdb.bytes.written COUNT : 100\nrocksdb.wal.bytes COUNT : 120\nrocksdb.flush.write.bytes COUNT : 50\nrocksdb.compact.write.bytes COUNT : 30\nrocksdb.stall.micros COUNT : 7\nrocksdb.db.get.micros P50 : 1.000000 P95 : 2.000000 P99 : 3.000000 P100 : 4.000000 COUNT : 5 SUM : 6\n".into())
    }
}

struct MemIter {
    entries: Vec<(Vec<u8>, usize)>,
    pos: Option<usize>,
}

impl BenchIter for MemIter {
    fn go(&mut self, to: Move<'_>) -> anyhow::Result<()> {
        let n = self.entries.len();
        self.pos = match to {
            Move::First => (n > 0).then_some(0),
            Move::Last => n.checked_sub(1),
            Move::Seek(key) => {
                let i = self.entries.partition_point(|(k, _)| k.as_slice() < key);
                (i < n).then_some(i)
            }
            Move::Next => self.pos.map(|p| p + 1).filter(|p| *p < n),
            Move::Prev => self.pos.and_then(|p| p.checked_sub(1)),
        };
        Ok(())
    }
    fn valid(&self) -> bool {
        self.pos.is_some()
    }
    fn key(&self) -> &[u8] {
        self.pos
            .and_then(|p| self.entries.get(p))
            .map_or(&[], |(k, _)| k.as_slice())
    }
    fn value_len(&self) -> usize {
        self.pos
            .and_then(|p| self.entries.get(p))
            .map_or(0, |(_, v)| *v)
    }
}
