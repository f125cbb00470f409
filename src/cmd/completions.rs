//! `yahtzee completions SHELL`: the shell completion script, generated from the command line
//! itself (clap_complete), so it always names every subcommand and flag.

use anyhow::Result;
use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};

pub fn run(args: &CompletionsArgs) -> Result<()> {
    let mut out = std::io::stdout().lock();
    clap_complete::generate(args.shell, &mut Cli::command(), "yahtzee", &mut out);
    Ok(())
}
