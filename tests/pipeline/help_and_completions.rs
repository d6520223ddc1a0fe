//! The command line's own documentation: `help` groups a command's options under headings,
//! and `webdiet completions SHELL` and `webdiet man [COMMAND]` print what a packager installs,
//! made from the same definition (src/cli/generate.rs).

use std::process::Command;

use crate::common;

use common::webdiet;

/// The options `help COMMAND` lists under `heading`, up to the next heading.
fn options_under(help: &str, heading: &str) -> Vec<String> {
    let start = help
        .find(&format!("\n{heading}:\n"))
        .unwrap_or_else(|| panic!("no heading {heading:?} in:\n{help}"));
    help[start + heading.len() + 3..]
        .lines()
        .take_while(|line| line.is_empty() || line.starts_with(' '))
        .filter_map(|line| line.trim_start().strip_prefix("--"))
        .map(|option| format!("--{}", option.split([' ', ',']).next().unwrap_or_default()))
        .collect()
}

fn stdout_of(args: &[&str]) -> String {
    let out = webdiet().args(args).output().unwrap();
    assert!(out.status.success(), "webdiet {args:?}: {out:?}");
    assert!(
        out.stderr.is_empty(),
        "webdiet {args:?} wrote on stderr: {out:?}"
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn audit_help_groups_the_ci_options_apart_from_the_1997_study() {
    let help = stdout_of(&["help", "audit"]);
    for (heading, options) in [
        (
            "Budgets",
            &["--max-requests", "--budgets", "--baseline"][..],
        ),
        (
            "CI formats",
            &["--junit", "--sarif", "--gitlab-codequality", "--github"],
        ),
        (
            "Replay: the 1997 study",
            &["--mss", "--nagle", "--tcp-1997"],
        ),
        (
            "Replay: links and clients",
            &["--link", "--measure", "--client"],
        ),
        ("Web archives", &["--with", "--at", "--emit-wacz"]),
        ("Output", &["--out", "--force", "--dry-run"]),
    ] {
        let under = options_under(&help, heading);
        for option in options {
            assert!(
                under.iter().any(|o| o == option),
                "{option} is not under {heading}: {under:?}"
            );
        }
    }
    // What `audit` refuses is left out of its help, and is still in `replay`'s.
    for option in ["--document-sizes", "--chart", "--capture"] {
        assert!(!help.contains(option), "{option} is in audit's help");
    }
    let replay = stdout_of(&["help", "replay"]);
    assert_eq!(
        options_under(&replay, "Replay: the 1998 HTTPS study"),
        ["--document-sizes", "--chart"]
    );
}

#[test]
fn report_help_names_every_format_it_writes() {
    let help = stdout_of(&["help", "report"]);
    let about = help.lines().next().unwrap();
    for format in [
        "text", "Markdown", "HTML", "JSON", "JUnit", "SARIF", "GitLab", "GitHub",
    ] {
        assert!(about.contains(format), "{format} is not in: {about}");
    }
    let listed = stdout_of(&["report", "--help"]);
    for value in ["junit", "sarif", "gitlab", "github"] {
        assert!(
            listed.contains(&format!("{value}:")),
            "{value} is not described: {listed}"
        );
    }
}

#[test]
fn every_shells_completion_script_offers_the_commands_and_their_options() {
    for shell in ["bash", "elvish", "fish", "powershell", "zsh"] {
        let script = stdout_of(&["completions", shell]);
        // fish names options without their dashes (`-l max-requests`).
        for word in ["audit", "batch", "max-requests", "effort"] {
            assert!(
                script.contains(word),
                "the {shell} script does not offer {word}"
            );
        }
        assert!(
            !script.contains("__replay-child"),
            "the {shell} script offers the hidden command"
        );
    }
}

#[test]
fn the_man_pages_of_webdiet_and_of_every_command_render() {
    let top = stdout_of(&["man"]);
    // Every `webdiet-COMMAND(1)` the main page refers to.
    let commands: Vec<String> = top
        .lines()
        .filter_map(|line| line.strip_prefix("webdiet\\-")?.strip_suffix("(1)"))
        .map(|name| name.replace("\\-", "-"))
        .collect();
    assert!(commands.iter().any(|c| c == "audit"), "{commands:?}");
    let groff = Command::new("groff").arg("--version").output().is_ok();
    assert!(
        groff || !common::in_ci(),
        "groff is required in CI (Debian package groff-base)"
    );
    if !groff {
        eprintln!("note: groff not installed; the man pages are checked but not rendered");
    }
    for command in std::iter::once(None).chain(commands.iter().map(Some)) {
        let (page, title) = match command {
            None => (top.clone(), "webdiet".to_string()),
            Some(c) => (stdout_of(&["man", c]), format!("webdiet-{c}")),
        };
        // After clap_mangen's two lines defining the apostrophe, the title.
        let first = page
            .lines()
            .find(|l| !l.starts_with(".ie ") && !l.starts_with(".el "));
        assert!(
            first.is_some_and(|l| l.starts_with(&format!(".TH {title} 1 "))),
            "{title}'s page begins {first:?}"
        );
        assert!(
            page.is_ascii(),
            "{title}'s page has raw non-ASCII characters"
        );
        if groff {
            let rendered = groff_text(&page);
            assert!(rendered.contains("NAME"), "{title}: {rendered}");
        }
    }
    let audit = stdout_of(&["man", "audit"]);
    for section in [
        ".SH BUDGETS",
        ".SH \"CI FORMATS\"",
        ".SH \"REPLAY: THE 1997 STUDY\"",
    ] {
        assert!(audit.contains(section), "no {section} in audit's page");
    }
}

/// The page as `man` shows it, in plain text (`-P-cbou`: no bold or underlining), with
/// groff's warnings (`-ww`) failing the test.
fn groff_text(page: &str) -> String {
    use std::io::Write;
    let mut child = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-P-cbou"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(page.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let warnings = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && warnings.is_empty(),
        "groff: {warnings}"
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn man_of_an_unknown_command_is_a_usage_error_naming_the_commands() {
    webdiet()
        .args(["man", "audits"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "no such command; one of analyze, rewrite",
        ));
}
