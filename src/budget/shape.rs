//! Lighthouse's `budget.json` read as strictly as Lighthouse reads it: a key it does not know,
//! at any depth (`"tolerance"` in a timing, `"foo"` in a resource size, a misspelt `"paths"`),
//! is an error naming the key with its line and column, as Lighthouse refuses such a file
//! (`Budget.initializeBudget` asserts "no excess properties" at every level). And where each
//! budget object of the file begins, so that a message about a budget as a whole (a path
//! that matches no page) can say where it is.
//!
//! The key check is serde's `deny_unknown_fields` over the file's text, which knows the
//! position; what the keys hold is checked by `field.rs`, with its own messages.

use serde::de::IgnoredAny;
use serde::Deserialize;

// The fields are read only to check the keys: none is used.
#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Budget {
    path: Option<IgnoredAny>,
    options: Option<Options>,
    timings: Option<Vec<Timing>>,
    resource_sizes: Option<Vec<Resource>>,
    resource_counts: Option<Vec<Resource>>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Options {
    first_party_hostnames: Option<IgnoredAny>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Timing {
    metric: Option<IgnoredAny>,
    budget: Option<IgnoredAny>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Resource {
    resource_type: Option<IgnoredAny>,
    budget: Option<IgnoredAny>,
}

/// The first key of a Lighthouse `budget.json` (`text`) that Lighthouse does not know, with
/// its position: `line 3, column 20: unknown key `tolerance`, expected `metric` or `budget``;
/// `None` when there is none (or when the file is not of that shape at all: what is wrong
/// with it is `field.rs`'s to say).
pub fn unknown_key(text: &str) -> Option<String> {
    let e = serde_json::from_str::<Vec<Budget>>(text).err()?;
    let message = e.to_string();
    let what = message.strip_prefix("unknown field ")?;
    let what = what.split(" at line ").next().unwrap_or(what);
    Some(format!(
        "line {}, column {}: unknown key {what} (Lighthouse refuses a budget with a key it \
         does not know)",
        e.line(),
        e.column()
    ))
}

/// Where each element of the JSON array `text` begins, as `line L, column C` (from 1,
/// columns in characters), in order.
pub fn element_positions(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut in_string, mut escaped, mut expecting) = (0usize, false, false, false);
    let (mut line, mut column) = (1usize, 0usize);
    for c in text.chars() {
        if c == '\n' {
            (line, column) = (line + 1, 0);
            continue;
        }
        column += 1;
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        if expecting && !c.is_whitespace() && c != ']' {
            out.push(format!("line {line}, column {column}"));
            expecting = false;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => {
                depth += 1;
                expecting |= depth == 1 && c == '[';
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 1 => expecting = true,
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_lighthouse_does_not_know_is_named_with_its_line_and_column() {
        let text =
            "[{\"path\": \"/*\",\n  \"timings\": [{\"metric\": \"interactive\", \"budget\": 1, \
                    \"tolerance\": 5}]}]";
        let e = unknown_key(text).unwrap();
        assert!(e.starts_with("line 2, column "), "{e}");
        assert!(
            e.contains("unknown key `tolerance`, expected `metric` or `budget`"),
            "{e}"
        );
        let foo = r#"[{"resourceSizes": [{"resourceType": "image", "budget": 1, "foo": 2}]}]"#;
        assert!(unknown_key(foo).unwrap().contains("`foo`"));
        let options = r#"[{"options": {"firstPartyHostnames": ["a"], "x": 1}}]"#;
        assert!(unknown_key(options).unwrap().contains("`x`"));
        assert_eq!(
            unknown_key(
                r#"[{"path": "/", "resourceCounts": [{"resourceType": "total", "budget": 1}]}]"#
            ),
            None
        );
    }

    #[test]
    fn each_budget_of_the_array_is_found_where_it_begins() {
        let text = "[\n  {\"path\": \"/a,[b]\\\"\"},\n  {\"path\": \"/c\"}, {}\n]";
        assert_eq!(
            element_positions(text),
            ["line 2, column 3", "line 3, column 3", "line 3, column 19"]
        );
        assert!(element_positions("[]").is_empty());
    }
}
