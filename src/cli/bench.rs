pub fn run(_a: &BenchArgs) -> anyhow::Result<()> {
    anyhow::bail!("todo")
}
#[derive(Debug, clap::Args)]
pub struct BenchArgs {}
