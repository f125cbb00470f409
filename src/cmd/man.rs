//! `yahtzee man [COMMAND]`: the manual page in roff, generated from the command line itself
//! (clap_mangen): the main page, or the page of one subcommand.

use anyhow::{Result, bail};
use clap::CommandFactory;

use crate::cli::{Cli, ManArgs};
use yahtzee_core::text::excerpt;

pub fn run(args: &ManArgs) -> Result<()> {
    let mut cli = Cli::command();
    cli.build();
    let page = match &args.command {
        None => cli,
        Some(name) => {
            let Some(sub) = cli.find_subcommand(name) else {
                let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
                bail!(
                    "no command `{}`: the commands are {}",
                    excerpt(name),
                    names.join(", ")
                );
            };
            // The page is named after the whole command, `yahtzee-advise`.
            sub.clone().name(format!("yahtzee-{}", sub.get_name()))
        }
    };
    let mut out = std::io::stdout().lock();
    clap_mangen::Man::new(page).render(&mut out)?;
    Ok(())
}
