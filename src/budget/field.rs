//! `--budgets FILE`: budgets in the shapes the field already writes, read into the report's
//! [`Limit`]s beside `webdiet.toml`'s.
//!
//! - **Lighthouse's `budget.json`** (an array of budgets): `resourceSizes` in kilobytes of
//!   transfer size (× 1024), `resourceCounts`, `timings` read as the metric they name from
//!   the simulated browser's first visit on Lighthouse's mobile profile (`lighthouse-mobile`,
//!   as Lighthouse's simulated throttling), and `path` in robots.txt form matched to the
//!   visited page, the last matching budget applying, as in Lighthouse.
//! - **Lighthouse CI's assertions** (`{"ci": {"assert": {"assertions": …}}}`, or
//!   `{"assertions": …}`): `resource-summary:TYPE:size|count` (sizes in bytes, as lhci reads
//!   them), `total-byte-weight`, `network-requests`, the load-time audits; each `off`, `warn`
//!   or `error` as in lhci; `budgetsFile` is read too.
//! - **sitespeed.io's budget** (`{"budget": {"requests": …, "transferSize": …, "thirdParty":
//!   …}}`), sizes in bytes.
//!
//! Anything webdiet cannot measure is refused with a message saying why, never ignored.

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::report::model::budgets::PAINT_LINK;
use crate::report::{BudgetLevel, Limit, Measure, PaintMetric};

/// Largest budget file read.
const MAX_BYTES: u64 = 1 << 20;

/// Lighthouse's resource types, which `resourceSizes`, `resourceCounts` and lhci's
/// `resource-summary` name.
pub const RESOURCE_TYPES: [&str; 9] = [
    "total",
    "document",
    "script",
    "stylesheet",
    "image",
    "media",
    "font",
    "other",
    "third-party",
];

/// Lighthouse's load-time metrics, each read as the simulated browser's milestone it names
/// on Lighthouse's mobile profile ([`paint_metric`]).
const TIMINGS: [&str; 6] = [
    "first-contentful-paint",
    "first-meaningful-paint",
    "largest-contentful-paint",
    "speed-index",
    "interactive",
    "first-cpu-idle",
];

/// The simulated browser's milestone a Lighthouse metric is read as: the paints as they are
/// (first meaningful paint, retired by Lighthouse, as the first contentful one), and the
/// metrics of a page being ready — speed index, interactive, first CPU idle — as its `load`,
/// an upper bound for each (nothing of a page is still to come after it).
fn paint_metric(metric: &str) -> PaintMetric {
    match metric {
        "first-contentful-paint" | "first-meaningful-paint" => PaintMetric::Fcp,
        "largest-contentful-paint" => PaintMetric::Lcp,
        _ => PaintMetric::Load,
    }
}

/// Lighthouse metrics webdiet does not measure at all.
const NOT_MEASURED: [&str; 5] = [
    "cumulative-layout-shift",
    "total-blocking-time",
    "max-potential-fid",
    "estimated-input-latency",
    "mainthread-work-breakdown",
];

/// Reads a budget file in any of the three shapes.
pub fn load(path: &Path) -> Result<Vec<Limit>> {
    let text = crate::input::read_text(path, MAX_BYTES)?;
    parse(&text, path)
}

/// The limits of a budget file's text (`path` names it in messages and results).
pub fn parse(text: &str, path: &Path) -> Result<Vec<Limit>> {
    let invalid = |message: String| Error::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let value: Value = serde_json::from_str(text).map_err(|e| invalid(not_json(path, &e)))?;
    let source = path.display().to_string();
    let limits = match &value {
        Value::Array(budgets) => match super::shape::unknown_key(text) {
            Some(message) => Err(message),
            None => lighthouse(budgets, &source, &super::shape::element_positions(text)),
        },
        Value::Object(o) if o.contains_key("budget") => sitespeed(o, &source),
        Value::Object(o) if o.contains_key("ci") || o.contains_key("assertions") => {
            lhci(o, path, &source)
        }
        _ => Err(
            "expected Lighthouse's budget.json (an array of budgets), Lighthouse CI's \
                  assertions ({\"ci\": {\"assert\": {\"assertions\": …}}}) or sitespeed.io's \
                  budget ({\"budget\": {\"requests\": …, \"transferSize\": …}})"
                .to_string(),
        ),
    };
    limits.map_err(invalid)
}

/// Why a budget file is refused when it is not JSON: the parser's words, and that webdiet
/// reads JSON only, saying so plainly for a Lighthouse CI configuration in JavaScript or YAML.
fn not_json(path: &Path, e: &serde_json::Error) -> String {
    let ext = path
        .extension()
        .map(|x| x.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let hint = match ext.as_str() {
        "js" | "cjs" | "mjs" | "yml" | "yaml" => format!(
            "; a .{ext} file is not read (webdiet runs no JavaScript and reads no YAML): write \
             its ci.assert as lighthouserc.json, or its budgets as budget.json"
        ),
        _ => String::new(),
    };
    format!(
        "not JSON ({e}): budget files are read as JSON only (Lighthouse's budget.json, a \
         lighthouserc.json, sitespeed.io's budget){hint}"
    )
}

fn number(v: &Value, what: &str) -> std::result::Result<f64, String> {
    v.as_f64()
        .filter(|n| *n >= 0.0 && n.is_finite())
        .ok_or_else(|| format!("{what}: expected a number of 0 or more, found {v}"))
}

fn resource_type(t: &str, what: &str) -> std::result::Result<String, String> {
    if RESOURCE_TYPES.contains(&t) {
        Ok(t.to_string())
    } else {
        Err(format!(
            "{what}: resource type {t:?} is not one of {}",
            RESOURCE_TYPES.join(", ")
        ))
    }
}

/// What a Lighthouse timing metric becomes, or why it cannot be read.
fn timing(metric: &str, what: &str) -> std::result::Result<Measure, String> {
    if TIMINGS.contains(&metric) {
        Ok(Measure::Paint(paint_metric(metric), None))
    } else if NOT_MEASURED.contains(&metric) {
        Err(format!(
            "{what}: webdiet measures no {metric} (no layout shifts or main-thread work in a \
             simulated load); the load-time metrics it reads from its simulated browser are {}",
            TIMINGS.join(", ")
        ))
    } else {
        Err(format!(
            "{what}: unknown metric {metric:?}; the load-time metrics webdiet reads from its \
             simulated browser are {}",
            TIMINGS.join(", ")
        ))
    }
}

fn limit(name: String, measure: Measure, value: f64, level: BudgetLevel, source: &str) -> Limit {
    Limit {
        level,
        ..Limit::new(name, measure, value, source)
    }
}

/// Lighthouse's `budget.json`, each budget object beginning at `positions[i]` of its file.
fn lighthouse(
    budgets: &[Value],
    source: &str,
    positions: &[String],
) -> std::result::Result<Vec<Limit>, String> {
    let mut out = Vec::new();
    for (group, budget) in budgets.iter().enumerate() {
        let at = format!("budget {}", group + 1);
        let position = match positions.get(group) {
            Some(p) => format!("{at} ({p})"),
            None => at.clone(),
        };
        let o = budget
            .as_object()
            .ok_or_else(|| format!("{at}: expected an object"))?;
        for key in o.keys() {
            if ![
                "path",
                "options",
                "timings",
                "resourceSizes",
                "resourceCounts",
            ]
            .contains(&key.as_str())
            {
                return Err(format!(
                    "{position}: unknown key {key:?} (a budget has path, options, timings, \
                     resourceSizes, resourceCounts)"
                ));
            }
        }
        let path = match o.get("path") {
            None => None,
            Some(Value::String(p)) if p.starts_with('/') => Some(p.clone()),
            Some(p) => return Err(format!("{at}: path {p} must be a string starting with /")),
        };
        let scope = path.as_deref().unwrap_or("/*");
        let list = |key: &str| -> std::result::Result<Vec<&Map<String, Value>>, String> {
            match o.get(key) {
                None => Ok(Vec::new()),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|i| {
                        i.as_object()
                            .ok_or_else(|| format!("{at}: {key}: expected objects"))
                    })
                    .collect(),
                Some(_) => Err(format!("{at}: {key}: expected an array")),
            }
        };
        let mut push = |mut l: Limit| {
            l.path = path.clone();
            l.group = Some(group);
            l.position = Some(position.clone());
            out.push(l);
        };
        for (key, size) in [("resourceSizes", true), ("resourceCounts", false)] {
            for item in list(key)? {
                let what = format!("{at}: {key}");
                let kind = resource_type(
                    item.get("resourceType")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                    &what,
                )?;
                let n = number(item.get("budget").unwrap_or(&Value::Null), &what)?;
                push(if size {
                    limit(
                        format!("{key} {kind} ≤ {n} KB ({scope})"),
                        Measure::ResourceSize(kind),
                        n * 1024.0,
                        BudgetLevel::Error,
                        source,
                    )
                } else {
                    limit(
                        format!("{key} {kind} ≤ {n} ({scope})"),
                        Measure::ResourceCount(kind),
                        n,
                        BudgetLevel::Error,
                        source,
                    )
                });
            }
        }
        for item in list("timings")? {
            let what = format!("{at}: timings");
            let metric = item
                .get("metric")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let measure = timing(metric, &what)?;
            let ms = number(item.get("budget").unwrap_or(&Value::Null), &what)?;
            push(limit(
                format!(
                    "timings {metric} ≤ {ms} ms ({scope}), the simulated browser's first visit \
                     on {PAINT_LINK}"
                ),
                measure,
                ms,
                BudgetLevel::Error,
                source,
            ));
        }
    }
    Ok(out)
}

/// Lighthouse CI's assertions, from a `lighthouserc.json` or a bare `{"assertions": …}`.
fn lhci(
    o: &Map<String, Value>,
    path: &Path,
    source: &str,
) -> std::result::Result<Vec<Limit>, String> {
    let assert = match o.get("ci") {
        Some(ci) => ci
            .get("assert")
            .and_then(Value::as_object)
            .ok_or("ci.assert: expected an object")?,
        None => o,
    };
    let mut out = Vec::new();
    for key in assert.keys() {
        match key.as_str() {
            "assertions" | "budgetsFile" => {}
            "preset" => {
                return Err(
                    "ci.assert.preset: Lighthouse's presets assert Lighthouse audits, \
                            which webdiet does not run; list the assertions instead"
                        .into(),
                )
            }
            "assertMatrix" => {
                return Err(
                    "ci.assert.assertMatrix: URL patterns are regular expressions of \
                            lhci; use a budget.json with path patterns instead"
                        .into(),
                )
            }
            other => return Err(format!("ci.assert: unknown property {other:?}")),
        }
    }
    if let Some(file) = assert.get("budgetsFile") {
        let name = file
            .as_str()
            .ok_or("ci.assert.budgetsFile: expected a path")?;
        let beside = path.parent().unwrap_or(Path::new(".")).join(name);
        let text = crate::input::read_text(&beside, MAX_BYTES).map_err(|e| e.to_string())?;
        let budgets: Value = serde_json::from_str(&text).map_err(|e| {
            format!(
                "ci.assert.budgetsFile {}: {}",
                beside.display(),
                not_json(&beside, &e)
            )
        })?;
        let budgets = budgets.as_array().ok_or_else(|| {
            format!(
                "ci.assert.budgetsFile {}: expected a budget.json array",
                beside.display()
            )
        })?;
        if let Some(message) = super::shape::unknown_key(&text) {
            return Err(format!(
                "ci.assert.budgetsFile {}: {message}",
                beside.display()
            ));
        }
        let positions = super::shape::element_positions(&text);
        out.extend(lighthouse(
            budgets,
            &beside.display().to_string(),
            &positions,
        )?);
    }
    let assertions = match assert.get("assertions") {
        None => return Ok(out),
        Some(Value::Object(a)) => a,
        Some(_) => return Err("assertions: expected an object".into()),
    };
    for (id, setting) in assertions {
        let what = format!("assertions.{id}");
        let (level, options) = match setting {
            Value::String(level) => (level.as_str(), None),
            Value::Array(pair) => match pair.as_slice() {
                [Value::String(level)] => (level.as_str(), None),
                [Value::String(level), Value::Object(opts)] => (level.as_str(), Some(opts)),
                _ => return Err(format!("{what}: expected [\"warn\"|\"error\", {{…}}]")),
            },
            _ => {
                return Err(format!(
                    "{what}: expected \"off\", \"warn\", \"error\" or a pair"
                ))
            }
        };
        let level = match level {
            "off" => continue,
            "warn" => BudgetLevel::Warn,
            "error" => BudgetLevel::Error,
            other => return Err(format!("{what}: level {other:?} is not off, warn or error")),
        };
        let options = options.ok_or_else(|| {
            format!(
                "{what}: webdiet needs a limit: [\"{}\", {{\"maxNumericValue\": N}}]",
                level.as_str()
            )
        })?;
        if options.contains_key("minScore") {
            return Err(format!(
                "{what}: minScore reads Lighthouse's scores, which webdiet does not compute; \
                 use maxNumericValue"
            ));
        }
        let max = |key: &str| -> std::result::Result<f64, String> {
            number(
                options
                    .get(key)
                    .ok_or_else(|| format!("{what}: needs {key}"))?,
                &format!("{what}.{key}"),
            )
        };
        let (measure, value, unit) = if let Some(rest) = id.strip_prefix("resource-summary:") {
            let (kind, figure) = rest
                .rsplit_once(':')
                .ok_or_else(|| format!("{what}: expected resource-summary:TYPE:size|count"))?;
            let kind = resource_type(kind, &what)?;
            match figure {
                "size" => (
                    Measure::ResourceSize(kind),
                    max("maxNumericValue")?,
                    "bytes",
                ),
                "count" => (Measure::ResourceCount(kind), max("maxNumericValue")?, ""),
                other => return Err(format!("{what}: {other:?} is not size or count")),
            }
        } else if id == "total-byte-weight" {
            (
                Measure::ResourceSize("total".into()),
                max("maxNumericValue")?,
                "bytes",
            )
        } else if id == "network-requests" {
            let n = options
                .get("maxLength")
                .map(|v| number(v, &format!("{what}.maxLength")))
                .unwrap_or_else(|| max("maxNumericValue"))?;
            (Measure::ResourceCount("total".into()), n, "")
        } else {
            (timing(id, &what)?, max("maxNumericValue")?, "ms")
        };
        let name = match &measure {
            Measure::Paint(..) => {
                format!("{id} ≤ {value} ms, the simulated browser's first visit on {PAINT_LINK}")
            }
            _ => format!(
                "{id} ≤ {value}{}",
                if unit.is_empty() { "" } else { " bytes" }
            ),
        };
        out.push(limit(name, measure, value, level, source));
    }
    Ok(out)
}

/// sitespeed.io's budget: the `requests`, `transferSize` and `thirdParty` sections.
fn sitespeed(o: &Map<String, Value>, source: &str) -> std::result::Result<Vec<Limit>, String> {
    let budget = o
        .get("budget")
        .and_then(Value::as_object)
        .ok_or("budget: expected an object")?;
    let types = |key: &str| -> std::result::Result<String, String> {
        Ok(match key {
            "total" => "total",
            "html" => "document",
            "javascript" => "script",
            "css" => "stylesheet",
            "image" => "image",
            "font" => "font",
            other => {
                return Err(format!(
                    "budget: content type {other:?} is not one of total, html, javascript, \
                     css, image, font"
                ))
            }
        }
        .to_string())
    };
    let mut out = Vec::new();
    for (section, items) in budget {
        let items = items
            .as_object()
            .ok_or_else(|| format!("budget.{section}: expected an object"))?;
        for (key, value) in items {
            let what = format!("budget.{section}.{key}");
            let n = number(value, &what)?;
            let (measure, name) = match section.as_str() {
                "requests" => {
                    let kind = types(key)?;
                    (
                        Measure::ResourceCount(kind),
                        format!("requests.{key} ≤ {n}"),
                    )
                }
                "transferSize" => {
                    let kind = types(key)?;
                    (
                        Measure::ResourceSize(kind),
                        format!("transferSize.{key} ≤ {n} bytes"),
                    )
                }
                "thirdParty" => match key.as_str() {
                    "requests" => (
                        Measure::ResourceCount("third-party".into()),
                        format!("thirdParty.requests ≤ {n}"),
                    ),
                    "transferSize" => (
                        Measure::ResourceSize("third-party".into()),
                        format!("thirdParty.transferSize ≤ {n} bytes"),
                    ),
                    other => {
                        return Err(format!(
                            "{what}: thirdParty.{other} is not read (requests, transferSize)"
                        ))
                    }
                },
                other => {
                    return Err(format!(
                        "budget.{other}: webdiet reads sitespeed.io's requests, transferSize and \
                         thirdParty sections; {other} needs a browser's metrics"
                    ))
                }
            };
            out.push(limit(name, measure, n, BudgetLevel::Error, source));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> std::result::Result<Vec<Limit>, String> {
        parse(text, Path::new("budget.json")).map_err(|e| e.to_string())
    }

    #[test]
    fn a_lighthouse_budget_reads_kilobytes_counts_timings_and_paths() {
        let limits = read(
            r#"[{"path": "/*", "resourceSizes": [{"resourceType": "total", "budget": 300},
                 {"resourceType": "image", "budget": 150}],
                 "resourceCounts": [{"resourceType": "third-party", "budget": 10}],
                 "timings": [{"metric": "interactive", "budget": 3000}]},
                {"path": "/blog", "resourceSizes": [{"resourceType": "total", "budget": 200}]}]"#,
        )
        .unwrap();
        assert_eq!(limits.len(), 5);
        assert_eq!(limits[0].measure, Measure::ResourceSize("total".into()));
        assert_eq!(limits[0].limit, 300.0 * 1024.0, "kilobytes of 1024 bytes");
        assert_eq!(
            limits[2].measure,
            Measure::ResourceCount("third-party".into())
        );
        assert_eq!(
            limits[3].measure,
            Measure::Paint(PaintMetric::Load, None),
            "interactive: the load, its upper bound"
        );
        assert_eq!(
            (limits[4].group, limits[4].path.as_deref()),
            (Some(1), Some("/blog"))
        );
        assert!(limits.iter().all(|l| l.level == BudgetLevel::Error));
    }

    #[test]
    fn what_webdiet_cannot_measure_is_refused_with_the_reason() {
        let e = read(r#"[{"timings": [{"metric": "cumulative-layout-shift", "budget": 0.1}]}]"#)
            .unwrap_err();
        assert!(e.contains("measures no cumulative-layout-shift"), "{e}");
        let e =
            read(r#"[{"resourceSizes": [{"resourceType": "video", "budget": 1}]}]"#).unwrap_err();
        assert!(e.contains("\"video\" is not one of"), "{e}");
        let e = read(r#"[{"paths": "/"}]"#).unwrap_err();
        assert!(e.contains("unknown key `paths`"), "{e}");
        assert!(read(r#"{"x": 1}"#)
            .unwrap_err()
            .contains("expected Lighthouse's"));
        assert!(read("not json").unwrap_err().contains("not JSON"));
    }

    #[test]
    fn an_unknown_key_in_a_budget_entry_is_refused_with_the_file_and_its_position() {
        for (entry, key) in [
            (
                r#""timings": [{"metric": "interactive", "budget": 3000, "tolerance": 100}]"#,
                "tolerance",
            ),
            (
                r#""resourceSizes": [{"resourceType": "image", "budget": 10, "foo": 1}]"#,
                "foo",
            ),
            (
                r#""resourceCounts": [{"resourceType": "font", "budget": 1, "foo": 1}]"#,
                "foo",
            ),
        ] {
            let text = format!("[\n {{\"path\": \"/*\",\n  {entry}}}\n]");
            let e = read(&text).unwrap_err();
            assert!(e.starts_with("budget.json: line 3, column "), "{e}");
            assert!(e.contains(&format!("unknown key `{key}`")), "{e}");
        }
    }

    #[test]
    fn a_lighthouserc_in_javascript_or_yaml_is_refused_saying_only_json_is_read() {
        for name in ["lighthouserc.js", "lighthouserc.yml", ".lighthouserc.yaml"] {
            let e = parse("module.exports = {ci: {}};", Path::new(name))
                .unwrap_err()
                .to_string();
            assert!(e.starts_with(&format!("{name}: not JSON")), "{e}");
            assert!(e.contains("read as JSON only"), "{e}");
            assert!(e.contains("is not read"), "{e}");
        }
        let e = read("{").unwrap_err();
        assert!(
            e.contains("read as JSON only") && !e.contains("is not read"),
            "{e}"
        );
    }

    #[test]
    fn each_limit_of_a_budget_says_where_its_budget_begins() {
        let limits = read("[\n{\"path\": \"/a\", \"resourceCounts\": [{\"resourceType\": \"total\", \"budget\": 1}]}]").unwrap();
        assert_eq!(
            limits[0].position.as_deref(),
            Some("budget 1 (line 2, column 1)")
        );
    }

    #[test]
    fn lhci_assertions_keep_their_levels_and_bytes() {
        let limits = read(
            r#"{"ci": {"assert": {"assertions": {
                "resource-summary:script:size": ["warn", {"maxNumericValue": 150000}],
                "resource-summary:image:count": ["error", {"maxNumericValue": 40}],
                "largest-contentful-paint": ["error", {"maxNumericValue": 2500}],
                "network-requests": ["warn", {"maxLength": 50}],
                "uses-long-cache-ttl": "off"}}}}"#,
        )
        .unwrap();
        assert_eq!(limits.len(), 4, "off is off");
        let find = |m: Measure| limits.iter().find(|l| l.measure == m).unwrap();
        let script = find(Measure::ResourceSize("script".into()));
        assert_eq!((script.limit, script.level), (150_000.0, BudgetLevel::Warn));
        assert_eq!(find(Measure::Paint(PaintMetric::Lcp, None)).limit, 2500.0);
        assert_eq!(find(Measure::ResourceCount("total".into())).limit, 50.0);
        let e = read(r#"{"assertions": {"categories:performance": ["error", {"minScore": 0.9}]}}"#)
            .unwrap_err();
        assert!(e.contains("minScore"), "{e}");
        let e = read(r#"{"assertions": {"resource-summary:font:size": "error"}}"#).unwrap_err();
        assert!(e.contains("needs a limit"), "{e}");
    }

    #[test]
    fn a_sitespeed_budget_reads_requests_and_transfer_sizes_in_bytes() {
        let limits = read(
            r#"{"budget": {"requests": {"total": 60, "image": 40},
                           "transferSize": {"javascript": 100000, "html": 20000},
                           "thirdParty": {"requests": 0}}}"#,
        )
        .unwrap();
        assert_eq!(limits.len(), 5);
        assert!(limits
            .iter()
            .any(|l| l.measure == Measure::ResourceSize("script".into()) && l.limit == 100_000.0));
        assert!(limits
            .iter()
            .any(|l| l.measure == Measure::ResourceSize("document".into())));
        let e = read(r#"{"budget": {"timings": {"firstPaint": 1000}}}"#).unwrap_err();
        assert!(e.contains("needs a browser's metrics"), "{e}");
    }
}
