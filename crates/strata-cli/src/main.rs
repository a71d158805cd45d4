//! The `strata` command.

fn main() -> anyhow::Result<()> {
    anyhow::bail!("no subcommand yet")
}
