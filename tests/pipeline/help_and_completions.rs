//! The command line's own documentation: `help` groups a command's options under headings.

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
