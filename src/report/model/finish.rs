//! [`Report::finish`]: everything derived from what the stages measured, computed once and
//! in one order — TLS's cost, what a visitor saves per named link, the ranked opportunities,
//! the per-file findings, then the budgets and the baseline, which read them. `audit` and
//! `rewrite` call it; `webdiet report` and `--baseline` read a finished report back with
//! [`Report::load`], which derives only what an older writer did not store.

use std::path::Path;

use super::budgets::{self, Gates};
use super::findings::{self, Reader};
use super::report::{Report, SCHEMA_VERSION};
use super::{opportunities, savings, tls};
use crate::error::{Error, Result};

impl Report {
    /// Derives every figure that depends only on the report's own data: TLS's cost, the
    /// visitor's savings, the opportunities and the findings (without lines).
    pub fn derive(&mut self) {
        self.derive_reading(None);
    }

    /// [`Report::derive`], finding each finding's line in the original site's files with
    /// `read`, then checks the `gates`.
    pub fn finish(&mut self, gates: &Gates, read: Option<Reader>) {
        self.derive_reading(read);
        self.budgets = budgets::check(gates, self);
        self.problems.sort();
        self.problems.dedup();
    }

    fn derive_reading(&mut self, read: Option<Reader>) {
        self.tls_cost = tls::costs(&self.replay);
        self.visitor_savings = savings::visitor_savings(self);
        self.opportunities = opportunities::rank(self);
        self.findings = findings::derive(self, read);
    }

    /// A `report.json` read back (from `path`, for messages): the same schema version, and
    /// what an older writer did not store derived again (the visitor's savings, the
    /// opportunities' time and evidence, the findings, without lines).
    pub fn load(bytes: &[u8], path: &Path) -> Result<Report> {
        let mut report: Report = serde_json::from_slice(bytes).map_err(|e| Error::Invalid {
            path: path.to_path_buf(),
            message: format!("not a webdiet report.json: {e}"),
        })?;
        if report.schema_version != SCHEMA_VERSION {
            return Err(Error::Invalid {
                path: path.to_path_buf(),
                message: format!(
                    "schema_version {} is not the {SCHEMA_VERSION} this webdiet reads",
                    report.schema_version
                ),
            });
        }
        if report.visitor_savings.is_none() {
            report.visitor_savings = savings::visitor_savings(&report);
        }
        if report.opportunities.iter().all(|o| o.evidence.is_empty()) {
            report.opportunities = opportunities::rank(&report);
        }
        if report.findings.is_empty() {
            report.findings = findings::derive(&report, None);
        }
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_of_an_older_writer_gets_its_derived_parts_on_load() {
        let mut old = serde_json::to_value(crate::report::model::sample::sample()).unwrap();
        let fields = old.as_object_mut().unwrap();
        for later in ["visitor_savings", "findings", "resources"] {
            fields.remove(later);
        }
        for o in fields["opportunities"].as_array_mut().unwrap() {
            let o = o.as_object_mut().unwrap();
            for later in ["action", "time_ms", "time_link", "time_basis", "evidence"] {
                o.remove(later);
            }
        }
        let bytes = serde_json::to_vec(&old).unwrap();
        let report = Report::load(&bytes, Path::new("old.json")).unwrap();
        assert!(report.visitor_savings.is_some());
        assert!(!report.findings.is_empty());
        assert!(report.opportunities.iter().all(|o| !o.evidence.is_empty()));
    }

    #[test]
    fn another_schema_version_is_refused_with_the_path() {
        let mut r = crate::report::model::sample::sample();
        r.schema_version = 1;
        let bytes = serde_json::to_vec(&r).unwrap();
        let e = Report::load(&bytes, Path::new("x/report.json")).unwrap_err();
        assert!(e.to_string().contains("x/report.json"), "{e}");
        assert!(Report::load(b"{}", Path::new("y.json")).is_err());
    }
}
