//! `yahtzee completions SHELL`: the shell completion script, generated from the command line
//! itself (clap_complete), so it always names every subcommand and flag.

use std::io::Write;

use anyhow::Result;
use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};

pub fn run(args: &CompletionsArgs) -> Result<()> {
    // Rendered first, then written: clap_complete panics on a write error (a full disk),
    // where a write error is one error line.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "yahtzee", &mut script);
    std::io::stdout().lock().write_all(&script)?;
    Ok(())
}
