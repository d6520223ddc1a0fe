//! One page load as a user's browser makes it, seen through the DevTools protocol: every
//! request from the Network domain (its connection, protocol, status and timings, so the
//! waterfall is the browser's own) and the page's metrics from its performance timeline
//! (time to first byte, first and largest contentful paint, `DOMContentLoaded`, `load`).
//!
//! Times are milliseconds from the navigation's start: the performance timeline's origin,
//! and for the Network domain the moment the page's own request was issued (the two agree
//! within a millisecond: nothing is resolved or proxied before it).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::{Browser, RenderError};

/// How a page is loaded.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// How long the page may take to fire `load` and finish its requests. Default: 30 s.
    pub timeout: Duration,
    /// After `load`, the page counts as complete once no request has been in flight for this
    /// long (late requests from scripts still belong to it). Default: 200 ms.
    pub quiet: Duration,
    /// Test hook: kill the browser once the page's first response has arrived, as a crash
    /// in the middle of a load would. Default: `false`.
    pub crash_after_first_response: bool,
    /// Slow the page's main thread down this many times (`Emulation.setCPUThrottlingRate`),
    /// as Lighthouse's mobile profile does. Default: 1 (not slowed).
    pub cpu_slowdown: u32,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            timeout: Duration::from_secs(30),
            quiet: Duration::from_millis(200),
            crash_after_first_response: false,
            cpu_slowdown: 1,
        }
    }
}

/// The page's own metrics, in ms from the navigation's start; `None` when it never got
/// there (no paint before the timeout, say).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PageMetrics {
    /// Time to first byte: the first byte of the page's response (`responseStart`).
    pub ttfb_ms: Option<f64>,
    /// First contentful paint.
    pub fcp_ms: Option<f64>,
    /// Largest contentful paint: the last candidate reported.
    pub lcp_ms: Option<f64>,
    /// `DOMContentLoaded` fired (`domContentLoadedEventStart`).
    pub dom_content_loaded_ms: Option<f64>,
    /// `load` fired (`loadEventStart`).
    pub load_ms: Option<f64>,
}

/// One request of the page, as the browser made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BrowserRequest {
    pub url: String,
    /// The socket the response came on (Chromium's `connectionId`): a count of distinct ids
    /// is the connections the browser used. `None` for a response from the cache.
    pub connection: Option<u64>,
    /// `http/1.1`, `h2`, … as negotiated.
    pub protocol: Option<String>,
    /// The status code; 304 for a validated cache entry.
    pub status: Option<u16>,
    /// Answered by the cache without a request on the network.
    pub from_cache: bool,
    /// When the browser asked for it (before any connection set-up).
    pub start_ms: f64,
    /// When it started a connection for it, and when that was ready (TCP and TLS); `None`
    /// on a connection already open.
    pub connect_start_ms: Option<f64>,
    pub connect_end_ms: Option<f64>,
    /// When the request went out, when its response's headers were in, and its last byte.
    pub sent_ms: Option<f64>,
    pub first_byte_ms: Option<f64>,
    pub done_ms: Option<f64>,
    /// Bytes received for it on the network (headers and body as encoded).
    pub encoded_bytes: u64,
    /// Why it failed, when it did.
    pub failed: Option<String>,
}

/// What one page load did.
#[derive(Debug, Clone, PartialEq)]
pub struct PageLoad {
    pub metrics: PageMetrics,
    /// Every request, in the order the browser made them.
    pub requests: Vec<BrowserRequest>,
    /// `load` fired and every request finished before the timeout.
    pub complete: bool,
    /// The last byte of the last request, from the navigation's start.
    pub complete_ms: Option<f64>,
}

/// A request while it is being followed.
struct Pending {
    order: usize,
    request: BrowserRequest,
    finished: bool,
    /// The status that came over the network (`responseReceivedExtraInfo`): a validated
    /// cache entry's response shows the cached 200, its wire the 304.
    wire_status: Option<u16>,
}

impl BrowserRequest {
    /// A request as the browser announces it: its URL and when it asked, nothing answered yet.
    pub fn new(url: impl Into<String>, start_ms: f64) -> BrowserRequest {
        BrowserRequest {
            url: url.into(),
            connection: None,
            protocol: None,
            status: None,
            from_cache: false,
            start_ms,
            connect_start_ms: None,
            connect_end_ms: None,
            sent_ms: None,
            first_byte_ms: None,
            done_ms: None,
            encoded_bytes: 0,
            failed: None,
        }
    }
}

/// What a page load has seen so far: its requests by id and where it stands.
struct LoadState {
    requests: BTreeMap<String, Pending>,
    /// The Network domain's clock at the page's own request: time zero.
    origin: Option<f64>,
    load_fired: bool,
    /// The last time a request finished (or `load` fired).
    quiet_since: Instant,
    crashed_on_purpose: bool,
}

/// What one event means for the load.
enum Step {
    Go,
    /// The page's renderer crashed.
    Crashed,
    /// The test hook asks for the browser to be killed now.
    Kill,
}

impl LoadState {
    fn new() -> LoadState {
        LoadState {
            requests: BTreeMap::new(),
            origin: None,
            load_fired: false,
            quiet_since: Instant::now(),
            crashed_on_purpose: false,
        }
    }

    fn in_flight(&self) -> bool {
        self.requests.values().any(|p| !p.finished)
    }

    /// `load` has fired and no request has been in flight for `quiet`.
    fn settled(&self, quiet: Duration) -> bool {
        self.load_fired && !self.in_flight() && self.quiet_since.elapsed() >= quiet
    }

    /// How long to wait for the next message: until the quiet period could end, or the
    /// deadline.
    fn wait_until(&self, quiet: Duration, deadline: Instant) -> Instant {
        if self.load_fired && !self.in_flight() {
            (self.quiet_since + quiet).min(deadline)
        } else {
            deadline
        }
    }

    /// Takes one event of the page's session.
    fn on_event(&mut self, method: &str, params: &Value, opts: &LoadOptions) -> Step {
        let id = params["requestId"].as_str().unwrap_or_default();
        let origin = self.origin;
        let at = |origin: Option<f64>| {
            let t = params["timestamp"].as_f64().unwrap_or(0.0);
            (t - origin.unwrap_or(t)) * 1000.0
        };
        match method {
            "Page.loadEventFired" => {
                self.load_fired = true;
                self.quiet_since = Instant::now();
            }
            "Network.requestWillBeSent" => {
                if self.origin.is_none() {
                    self.origin = params["timestamp"].as_f64();
                }
                let url = params["request"]["url"].as_str().unwrap_or_default();
                let request = BrowserRequest::new(url, at(self.origin));
                // A redirect reuses the id: the new request replaces the old one.
                let order = self
                    .requests
                    .get(id)
                    .map_or(self.requests.len(), |p| p.order);
                let pending = Pending {
                    order,
                    request,
                    finished: false,
                    wire_status: None,
                };
                self.requests.insert(id.to_string(), pending);
            }
            "Network.responseReceived" => {
                let first = self.requests.values().all(|p| p.request.status.is_none());
                if let Some(p) = self.requests.get_mut(id) {
                    read_response(&mut p.request, &params["response"], origin);
                }
                if first && opts.crash_after_first_response {
                    self.crashed_on_purpose = true;
                    return Step::Kill;
                }
            }
            "Network.responseReceivedExtraInfo" => {
                if let Some(p) = self.requests.get_mut(id) {
                    p.wire_status = params["statusCode"].as_u64().map(|s| s as u16);
                }
            }
            "Network.requestServedFromCache" => {
                if let Some(p) = self.requests.get_mut(id) {
                    p.request.from_cache = true;
                }
            }
            "Network.loadingFinished" | "Network.loadingFailed" => {
                if let Some(p) = self.requests.get_mut(id) {
                    p.finished = true;
                    p.request.done_ms = Some(at(origin));
                    if method == "Network.loadingFinished" {
                        p.request.encoded_bytes =
                            params["encodedDataLength"].as_f64().unwrap_or(0.0) as u64;
                    } else {
                        let error = params["errorText"].as_str().unwrap_or("failed");
                        p.request.failed = Some(error.to_string());
                    }
                }
                self.quiet_since = Instant::now();
            }
            "Inspector.targetCrashed" => return Step::Crashed,
            _ => {}
        }
        Step::Go
    }

    /// The requests in the order the browser made them, each with its wire status.
    fn into_requests(self) -> Vec<BrowserRequest> {
        let mut ordered: Vec<Pending> = self.requests.into_values().collect();
        ordered.sort_by_key(|p| p.order);
        ordered
            .into_iter()
            .map(|mut p| {
                p.request.status = p.wire_status.or(p.request.status);
                p.request
            })
            .collect()
    }
}

impl Browser {
    /// Loads `url` in a new tab, following every request until `load` has fired and the
    /// network is quiet, or `opts.timeout` has passed (then the load is returned with
    /// `complete: false` and what was seen). Fails only when the browser itself fails.
    pub fn load_page(&mut self, url: &str, opts: &LoadOptions) -> Result<PageLoad, RenderError> {
        let setup_by = Instant::now() + Duration::from_secs(10);
        self.in_new_tab(setup_by, |browser, target_id| {
            browser.load_in_target(target_id, url, opts, setup_by)
        })
    }

    fn load_in_target(
        &mut self,
        target_id: &str,
        url: &str,
        opts: &LoadOptions,
        setup_by: Instant,
    ) -> Result<PageLoad, RenderError> {
        let session = self.attach(target_id, setup_by)?;
        let s = Some(session.as_str());
        self.call("Page.enable", json!({}), s, setup_by)?;
        self.call("Network.enable", json!({}), s, setup_by)?;
        if opts.cpu_slowdown > 1 {
            let rate = json!({ "rate": opts.cpu_slowdown });
            self.call("Emulation.setCPUThrottlingRate", rate, s, setup_by)?;
        }
        self.pending.clear();
        let deadline = Instant::now() + opts.timeout;
        let navigate = self.send("Page.navigate", json!({ "url": url }), s)?;
        let mut state = LoadState::new();
        let complete = self.follow(&session, navigate, &mut state, opts, deadline)?;
        if state.crashed_on_purpose {
            return Err(RenderError::new(
                "browser-exited",
                "chromium was killed after the first response (test hook)",
            ));
        }
        let metrics = self.metrics(s)?;
        let requests = state.into_requests();
        let complete_ms = requests
            .iter()
            .filter_map(|r| r.done_ms)
            .max_by(f64::total_cmp);
        Ok(PageLoad {
            metrics,
            requests,
            complete,
            complete_ms,
        })
    }

    /// Follows the page's events until it has settled (`Ok(true)`) or the deadline has passed
    /// (`Ok(false)`).
    fn follow(
        &mut self,
        session: &str,
        navigate: u64,
        state: &mut LoadState,
        opts: &LoadOptions,
        deadline: Instant,
    ) -> Result<bool, RenderError> {
        loop {
            if state.settled(opts.quiet) {
                return Ok(true);
            }
            if Instant::now() >= deadline {
                return Ok(false);
            }
            let Some(message) = self.next_message(state.wait_until(opts.quiet, deadline))? else {
                continue;
            };
            if message["id"].as_u64() == Some(navigate) {
                if let Some(error) = message["result"]["errorText"].as_str() {
                    return Err(RenderError::new("protocol", format!("navigation: {error}")));
                }
                continue;
            }
            if message["sessionId"].as_str() != Some(session) {
                continue;
            }
            let method = message["method"].as_str().unwrap_or_default();
            if method == "Page.javascriptDialogOpening" {
                let accept = json!({ "accept": true });
                self.send("Page.handleJavaScriptDialog", accept, Some(session))?;
                continue;
            }
            match state.on_event(method, &message["params"], opts) {
                Step::Go => {}
                Step::Kill => self.kill(),
                Step::Crashed => {
                    return Err(RenderError::new(
                        "browser-exited",
                        "the page's renderer crashed",
                    ))
                }
            }
        }
    }

    /// The page's performance timeline, read once the load is over (or has timed out).
    fn metrics(&mut self, session: Option<&str>) -> Result<PageMetrics, RenderError> {
        const SCRIPT: &str = r#"new Promise(resolve => {
            const nav = performance.getEntriesByType('navigation')[0] || {};
            const fcp = performance.getEntriesByName('first-contentful-paint')[0];
            let lcp = null;
            try {
                new PerformanceObserver(list => {
                    const e = list.getEntries();
                    if (e.length) lcp = e[e.length - 1].startTime;
                }).observe({ type: 'largest-contentful-paint', buffered: true });
            } catch (e) {}
            const at = v => (typeof v === 'number' && v > 0) ? v : null;
            setTimeout(() => resolve({
                ttfb: at(nav.responseStart), fcp: fcp ? fcp.startTime : null, lcp,
                dcl: at(nav.domContentLoadedEventStart), load: at(nav.loadEventStart),
            }), 50);
        })"#;
        let by = Instant::now() + Duration::from_secs(5);
        let value = self.call(
            "Runtime.evaluate",
            json!({ "expression": SCRIPT, "awaitPromise": true, "returnByValue": true }),
            session,
            by,
        )?;
        let v = &value["result"]["value"];
        let ms = |key: &str| v[key].as_f64();
        Ok(PageMetrics {
            ttfb_ms: ms("ttfb"),
            fcp_ms: ms("fcp"),
            lcp_ms: ms("lcp"),
            dom_content_loaded_ms: ms("dcl"),
            load_ms: ms("load"),
        })
    }

    /// The next message, or `None` when `until` passes first; an error when the browser is
    /// gone. Events kept by an earlier call come first.
    fn next_message(&mut self, until: Instant) -> Result<Option<Value>, RenderError> {
        if let Some(message) = self.pending.pop_front() {
            return Ok(Some(message));
        }
        let left = until.saturating_duration_since(Instant::now());
        match self.from_browser.recv_timeout(left) {
            Ok(message) => Ok(Some(message)),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Ok(None),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(RenderError::new(
                "browser-exited",
                format!("chromium exited during the page load; {}", self.log_tail()),
            )),
        }
    }
}

/// Takes what a `Network.responseReceived` says about a request.
fn read_response(request: &mut BrowserRequest, response: &Value, origin: Option<f64>) {
    request.status = response["status"].as_u64().map(|s| s as u16);
    request.protocol = response["protocol"].as_str().map(str::to_string);
    request.from_cache |= response["fromDiskCache"].as_bool().unwrap_or(false)
        || response["fromPrefetchCache"].as_bool().unwrap_or(false);
    request.connection = response["connectionId"]
        .as_f64()
        .filter(|&id| id > 0.0 && !request.from_cache)
        .map(|id| id as u64);
    let timing = &response["timing"];
    let Some(base) = timing["requestTime"].as_f64() else {
        return;
    };
    let origin = origin.unwrap_or(base);
    // Offsets are ms after `requestTime`; -1 means "did not happen".
    let at = |key: &str| {
        timing[key]
            .as_f64()
            .filter(|&v| v >= 0.0)
            .map(|v| (base - origin) * 1000.0 + v)
    };
    request.connect_start_ms = at("connectStart");
    request.connect_end_ms = at("connectEnd");
    request.sent_ms = at("sendStart");
    request.first_byte_ms = at("receiveHeadersEnd");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blank() -> BrowserRequest {
        BrowserRequest::new("http://h/", 0.0)
    }

    #[test]
    fn a_response_s_timings_are_placed_on_the_navigation_s_clock() {
        let mut r = blank();
        let response = json!({
            "status": 200, "protocol": "h2", "connectionId": 7,
            "timing": { "requestTime": 10.5, "connectStart": 1.0, "connectEnd": 31.0,
                        "sendStart": 31.5, "receiveHeadersEnd": 62.0 }
        });
        read_response(&mut r, &response, Some(10.0));
        assert_eq!(r.status, Some(200));
        assert_eq!(r.protocol.as_deref(), Some("h2"));
        assert_eq!(r.connection, Some(7));
        assert_eq!(r.connect_start_ms, Some(501.0));
        assert_eq!(r.connect_end_ms, Some(531.0));
        assert_eq!(r.sent_ms, Some(531.5));
        assert_eq!(r.first_byte_ms, Some(562.0));
    }

    #[test]
    fn a_reused_connection_has_no_set_up_and_the_cache_has_no_connection() {
        let mut r = blank();
        let response = json!({
            "status": 200, "connectionId": 3, "fromDiskCache": true,
            "timing": { "requestTime": 1.0, "connectStart": -1, "connectEnd": -1,
                        "sendStart": 0.2, "receiveHeadersEnd": 0.4 }
        });
        read_response(&mut r, &response, Some(1.0));
        assert!(r.from_cache);
        assert_eq!(r.connection, None);
        assert_eq!((r.connect_start_ms, r.connect_end_ms), (None, None));
    }
}
