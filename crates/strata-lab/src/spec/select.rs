//! `--only`: running (and reporting) a subset of a study's cells.
//!
//! A filter is `AXIS=LABEL[,AXIS=LABEL...]`; a cell matches it when it has
//! every one of those labels. With several filters a cell is kept when it
//! matches any of them, so `--only compaction=universal,wal=perf --only
//! compaction=leveled` keeps universal's perf cell and every leveled cell.

use crate::spec::model::{Job, Plan};

/// One parsed filter: (axis, label) pairs that must all hold.
type Filter = Vec<(String, String)>;

fn parse(plan: &Plan, text: &str) -> anyhow::Result<Filter> {
    let mut f = Vec::new();
    for part in text.split(',') {
        let (axis, label) = part
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("--only {text}: expected AXIS=LABEL, got `{part}`"))?;
        let (axis, label) = (axis.trim(), label.trim());
        let ax = plan.axis(axis).ok_or_else(|| {
            anyhow::anyhow!(
                "--only {text}: the study has no axis `{axis}` (has: {})",
                plan.axes
                    .iter()
                    .map(|a| a.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
        if !ax.values.iter().any(|v| v.label == label) {
            anyhow::bail!(
                "--only {text}: axis `{axis}` has no value `{label}` at this scale (has: {})",
                ax.values
                    .iter()
                    .map(|v| v.label.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        f.push((axis.to_string(), label.to_string()));
    }
    Ok(f)
}

impl Plan {
    /// Keeps the cells matching any of `only` (all cells when it is empty),
    /// drops axis values no kept cell has, and renumbers the jobs. An unknown
    /// axis or label is an error naming it.
    pub fn select_cells(&mut self, only: &[String]) -> anyhow::Result<()> {
        if only.is_empty() {
            return Ok(());
        }
        let filters = only
            .iter()
            .map(|t| parse(self, t))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let keep = |labels: &std::collections::BTreeMap<String, String>| {
            filters
                .iter()
                .any(|f| f.iter().all(|(a, l)| labels.get(a) == Some(l)))
        };
        self.cells.retain(|c| keep(&c.labels));
        if self.cells.is_empty() {
            anyhow::bail!("--only {}: no cell matches", only.join(" --only "));
        }
        for ax in &mut self.axes {
            let used: Vec<&String> = self
                .cells
                .iter()
                .filter_map(|c| c.labels.get(&ax.name))
                .collect();
            ax.values.retain(|v| used.contains(&&v.label));
        }
        let old = std::mem::take(&mut self.jobs);
        self.jobs = old
            .into_iter()
            .filter(|j| keep(&j.cell.labels))
            .enumerate()
            .map(|(index, j)| Job { index, ..j })
            .collect();
        self.only = only.to_vec();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    fn plan() -> crate::spec::model::Plan {
        let study = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../studies/wal_compaction_steady.toml"
        );
        let spec = crate::spec::load(std::path::Path::new(study)).unwrap();
        crate::spec::model::expand(&spec, "quick", Some(2), None).unwrap()
    }

    #[test]
    fn filters_keep_matching_cells_and_renumber_jobs() {
        let mut p = plan();
        assert_eq!(p.cells.len(), 14);
        p.select_cells(&[
            "compaction=universal,wal=perf".into(),
            "compaction=leveled-mult4".into(),
        ])
        .unwrap();
        let ids: Vec<&str> = p.cells.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "compaction=leveled-mult4,wal=perf",
                "compaction=leveled-mult4,wal=stable",
                "compaction=universal,wal=perf",
            ]
        );
        // 3 cells x 2 repeats x 2 engines, numbered from 0 in order.
        assert_eq!(p.jobs.len(), 12);
        assert!(p.jobs.iter().enumerate().all(|(i, j)| j.index == i));
        let comp: Vec<&str> = p
            .axis("compaction")
            .unwrap()
            .values
            .iter()
            .map(|v| v.label.as_str())
            .collect();
        assert_eq!(comp, ["leveled-mult4", "universal"]);
        assert_eq!(p.only.len(), 2);
    }

    #[test]
    fn unknown_axis_label_or_empty_selection_is_an_error() {
        let e = plan()
            .select_cells(&["style=universal".into()])
            .unwrap_err();
        assert!(e.to_string().contains("no axis `style`"), "{e}");
        let e = plan()
            .select_cells(&["compaction=fifo".into()])
            .unwrap_err();
        assert!(e.to_string().contains("no value `fifo`"), "{e}");
        let e = plan().select_cells(&["compaction".into()]).unwrap_err();
        assert!(e.to_string().contains("AXIS=LABEL"), "{e}");
        let mut p = plan();
        p.select_cells(&[]).unwrap();
        assert_eq!(p.cells.len(), 14);
    }
}
