//! What header compression saves: request and response header bytes of HTTP/1.1 against
//! HTTP/2 with HPACK, per request header set, beside the SPDY white paper's figures. Derived
//! here once; `report.json` keeps it as `header_cost`.

use serde::{Deserialize, Serialize};

use crate::replay::protocol::Role;
use crate::replay::{Mode, ReplayRow, Test};

/// The SPDY white paper's reductions of header bytes (its "header compression" result): about
/// 88% for requests and 85% for responses.
pub const SPDY_REQUEST_REDUCTION_PCT: f64 = 88.0;
pub const SPDY_RESPONSE_REDUCTION_PCT: f64 = 85.0;

/// The HTTP/1.1 mode and the HTTP/2 mode compared ([`Role::HeaderCostHttp1`] and
/// [`Role::HeaderCostH2`]): the same requests, one connection each. `None` if the table has no
/// such pair.
pub fn modes() -> Option<[Mode; 2]> {
    Some([
        Mode::with_role(Role::HeaderCostHttp1)?,
        Mode::with_role(Role::HeaderCostH2)?,
    ])
}

/// One site version, test and header set: header bytes per message in both protocols.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeaderCost {
    /// `original` or `rewritten`.
    pub site: String,
    /// `first` or `validate`.
    pub test: Test,
    /// `libwww` (the 1997 robot's few headers) or `browser` (a current Chromium's).
    pub header_set: String,
    /// The header set the replay's other figures were measured with.
    pub headline: bool,
    /// Mean request header bytes per request: HTTP/1.1 (request line and fields) and HTTP/2
    /// (HPACK blocks with their frame headers).
    pub http1_request_bytes: f64,
    pub h2_request_bytes: f64,
    /// Mean response header bytes per response.
    pub http1_response_bytes: f64,
    pub h2_response_bytes: f64,
    /// `1 − h2 / http1`, in percent. Figures here are rounded to a tenth.
    pub request_reduction_pct: f64,
    pub response_reduction_pct: f64,
}

/// Every (site, test, header set) for which both of [`modes`] were replayed. `headline_set`
/// names the set of the report's other figures.
pub fn costs(rows: &[ReplayRow], headline_set: &str) -> Vec<HeaderCost> {
    let mut out = Vec::new();
    let Some([http1_mode, h2_mode]) = modes() else {
        return out;
    };
    for h1 in rows.iter().filter(|r| r.mode == http1_mode) {
        let Some(h2) = rows.iter().find(|r| {
            r.mode == h2_mode
                && r.site == h1.site
                && r.test == h1.test
                && r.header_set == h1.header_set
        }) else {
            continue;
        };
        // Rounded to a tenth, which is also what survives a round trip through the JSON.
        let tenth = |v: f64| (v * 10.0).round() / 10.0;
        let per = |bytes: u64, count: u64| tenth(bytes as f64 / count.max(1) as f64);
        let reduction = |from: f64, to: f64| {
            if from > 0.0 {
                tenth(100.0 * (1.0 - to / from))
            } else {
                0.0
            }
        };
        let (h1_req, h2_req) = (
            per(h1.headers.up, h1.headers.requests),
            per(h2.headers.up, h2.headers.requests),
        );
        let (h1_res, h2_res) = (
            per(h1.headers.down, h1.headers.responses),
            per(h2.headers.down, h2.headers.responses),
        );
        out.push(HeaderCost {
            site: h1.site.clone(),
            test: h1.test,
            header_set: h1.header_set.clone(),
            headline: h1.header_set == headline_set,
            http1_request_bytes: h1_req,
            h2_request_bytes: h2_req,
            http1_response_bytes: h1_res,
            h2_response_bytes: h2_res,
            request_reduction_pct: reduction(h1_req, h2_req),
            response_reduction_pct: reduction(h1_res, h2_res),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::row::sample_row;

    fn row(mode: &str, set: &str, up: u64, down: u64) -> ReplayRow {
        let mut r = sample_row("original", mode, "first", 100, 1000);
        r.header_set = set.to_string();
        r.headers.up = up;
        r.headers.requests = 10;
        r.headers.down = down;
        r.headers.responses = 10;
        r
    }

    #[test]
    fn each_header_set_is_compared_between_the_same_requests_in_both_protocols() {
        let rows = [
            row("persistent", "libwww", 1000, 2000),
            row("h2c", "libwww", 200, 500),
            row("persistent", "browser", 6000, 2000),
            row("h2c", "browser", 600, 500),
            row("pipelined", "libwww", 1000, 2000),
        ];
        let c = costs(&rows, "libwww");
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].header_set, "libwww");
        assert!(c[0].headline && !c[1].headline);
        assert_eq!(c[0].http1_request_bytes, 100.0);
        assert_eq!(c[0].h2_request_bytes, 20.0);
        assert_eq!(c[0].request_reduction_pct, 80.0);
        assert_eq!(c[1].request_reduction_pct, 90.0);
        assert_eq!(c[1].response_reduction_pct, 75.0);
    }

    #[test]
    fn a_lone_mode_gives_no_comparison() {
        let rows = [row("persistent", "libwww", 1000, 2000)];
        assert!(costs(&rows, "libwww").is_empty());
    }
}
