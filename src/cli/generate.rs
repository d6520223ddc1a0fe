//! Shell completions and man pages, made from the command line's own definition by clap's
//! crates (clap_complete, clap_mangen), so that they say what `--help` says and never drift
//! from it. Like `--help`, they are text about the command line, made here at the border:
//! `webdiet completions SHELL` and `webdiet man [COMMAND]` print them (ripgrep prints its own
//! with `rg --generate complete-bash` and `rg --generate man`).

use clap::CommandFactory;
use clap_complete::Shell;

use super::Cli;
use crate::error::{Error, Result};

/// The completion script of `webdiet` for `shell`.
pub(super) fn completions(shell: Shell) -> String {
    let mut script = Vec::new();
    clap_complete::generate(
        shell,
        &mut without_hidden_commands(),
        "webdiet",
        &mut script,
    );
    String::from_utf8_lossy(&script).into_owned()
}

/// The command line without its hidden commands (`__replay-child`, which `replay` runs and a
/// person never should): clap_complete offers every command, hidden ones too
/// (clap-rs/clap#1335), and clap has no way to remove one, so the top level is made again
/// from the same arguments, groups and visible commands. Options hidden inside a command (the
/// three `audit` refuses) are still completed: removing them would break the groups and
/// relations clap checks them against, and `audit` refuses them with a message anyway.
fn without_hidden_commands() -> clap::Command {
    let full = Cli::command();
    let mut top = clap::Command::new("webdiet").version(crate::BUILD);
    if let Some(about) = full.get_about() {
        top = top.about(about.clone());
    }
    top = top.args(full.get_arguments().cloned());
    for group in full.get_groups() {
        top = top.group(group.clone());
    }
    top.subcommands(full.get_subcommands().filter(|c| !c.is_hide_set()).cloned())
}

/// The man page, in roff, of webdiet (`webdiet(1)`, which lists the commands) or of one of its
/// commands (`webdiet-audit(1)`, git's naming, which the list refers to).
pub(super) fn man(command: Option<&str>) -> Result<String> {
    // As `clap_mangen::generate_to` does: no `help` command in the pages, and the commands
    // named `webdiet-COMMAND` by the build.
    let mut webdiet = Cli::command().disable_help_subcommand(true);
    webdiet.build();
    let page = match command {
        None => webdiet,
        Some(name) => {
            let commands: Vec<&clap::Command> = webdiet
                .get_subcommands()
                .filter(|c| !c.is_hide_set())
                .collect();
            let Some(command) = commands.iter().find(|c| c.get_name() == name) else {
                let names: Vec<&str> = commands.iter().map(|c| c.get_name()).collect();
                return Err(Error::Usage {
                    message: format!("man {name}: no such command; one of {}", names.join(", ")),
                });
            };
            (*command).clone()
        }
    };
    // The date of the build's commit (build.rs). Never empty: clap_mangen writes an empty
    // date as nothing, and the source and manual then shift into its place on the page.
    let date = match env!("WEBDIET_COMMIT_DATE") {
        "" => "undated",
        date => date,
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page)
        .date(date)
        .source(concat!("webdiet ", env!("CARGO_PKG_VERSION")))
        .manual("webdiet")
        .render(&mut roff)
        .map_err(|e| Error::io("<man page>", e))?;
    Ok(ascii_roff(&String::from_utf8_lossy(&roff)))
}

/// `roff` with every character outside ASCII (the help's –, …, →) as groff's `\[uXXXX]`,
/// which groff and mandoc read in any locale: raw UTF-8 is read as Latin-1 by groff without
/// `-k`, and by `man -l -` from a pipe.
fn ascii_roff(roff: &str) -> String {
    let mut ascii = String::with_capacity(roff.len());
    for c in roff.chars() {
        match c.is_ascii() {
            true => ascii.push(c),
            false => ascii.push_str(&format!("\\[u{:04X}]", u32::from(c))),
        }
    }
    ascii
}
