//! Drives headless Chromium: turns a local HTML file into a full-page PNG screenshot (the
//! render check), and loads a page over the replay's emulated link with its metrics and
//! requests ([`page_load`]). The one module that owns Chromium.
//!
//! Why the DevTools protocol over `--remote-debugging-pipe`, spoken with serde_json, and no
//! crate: plain `chromium --headless --screenshot` only captures the window, so a full-page
//! screenshot needs the protocol (`Page.getLayoutMetrics`, then `Page.captureScreenshot` with
//! `captureBeyondViewport`). The crates that speak it bring a lot along: `chromiumoxide` needs a
//! tokio runtime, `headless_chrome` a websocket stack, an HTTP client and a browser downloader.
//! The pipe transport is just NUL-terminated JSON on file descriptors 3 (to Chromium) and 4
//! (from Chromium); `/bin/sh` moves our stdin/stdout pipes onto those descriptors
//! (`exec chromium … 3<&0 4>&1`), so no `unsafe` `pre_exec` is needed and no port is opened.
//!
//! Determinism: every browser gets a fresh profile in a temporary directory whose preferences
//! set the image animation policy to `none` (GIF/APNG/WebP show their first frame and never
//! advance), CSS animations and transitions are paused at their start with
//! `Animation.setPlaybackRate 0`, the device scale factor is 1, the colour profile sRGB, and
//! scrollbars are hidden. Scripts run on virtual time (`Emulation.setVirtualTimePolicy`): the
//! clock starts at the same moment for every page and advances only while nothing is being
//! fetched, so timers fire in the same order and the page is shot at the same virtual
//! moment, [`RenderOptions::virtual_time`] after navigation, however loaded the machine is.
//! Each page gets a new tab. Network ([`Network::Loopback`]): host names
//! never resolve, 127.0.0.1 (where `verify` serves the two trees) is the only address reachable
//! directly (Chromium never proxies loopback), and every other HTTP(S) request goes to a closed
//! loopback proxy port. For the replay ([`Network::Replay`]) one host name resolves to the
//! server's address, no other name resolves, and nothing is proxied.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::error::{Error, Result};

pub mod page_load;

/// Where a page's virtual clock starts: 2000-01-01 00:00:00 UTC, in seconds since the epoch.
const VIRTUAL_EPOCH: f64 = 946_684_800.0;

/// Run in every document before its own scripts: what virtual time leaves to chance made the
/// same in every render. `Math.random` becomes a fixed-seed generator (Park–Miller),
/// `performance.now()` reads the virtual clock (Chromium jitters the real one by up to 0.1 ms),
/// and the text caret, which blinks on the real clock, is transparent (an adopted sheet: not
/// in `document.styleSheets`, no node in the tree).
const SAME_EVERY_TIME: &str = "(function () {\
    var seed = 1;\
    Math.random = function () { seed = seed * 16807 % 2147483647; return (seed - 1) / 2147483646; };\
    var start = Date.now();\
    performance.now = function () { return Date.now() - start; };\
    var caret = new CSSStyleSheet();\
    caret.replaceSync('* { caret-color: transparent !important }');\
    document.adoptedStyleSheets = document.adoptedStyleSheets.concat([caret]);\
})();";

/// How many captures [`Browser::render_url_when`] takes at most while waiting for two in a row
/// to show the same picture.
const STABLE_CAPTURES: usize = 20;

/// The environment variable that names the Chromium binary, overriding the search.
pub const CHROMIUM_ENV: &str = "WEBDIET_CHROMIUM";

/// Options for rendering pages.
#[derive(Debug, Clone)]
pub struct RenderOptions {
    /// The Chromium binary. Default: `$WEBDIET_CHROMIUM`, else the first of `chromium`,
    /// `chromium-browser`, `google-chrome` found on `PATH`.
    pub chromium: Option<PathBuf>,
    /// Window width in CSS pixels (device scale factor 1). Default: 1024.
    pub window_width: u32,
    /// Window height in CSS pixels; the screenshot still covers the whole page. Default: 768.
    pub window_height: u32,
    /// Screenshots are cut at this height (and width) in pixels, which bounds memory for
    /// runaway pages. Default: 16384.
    pub max_size: u32,
    /// How long one page may take to load and be captured, and the browser to start. Default:
    /// 30 s. The render check gives each page more when it is large
    /// ([`Browser::render_url_within`], `verify::Patience`).
    pub timeout: Duration,
    /// How much virtual time a page's scripts get before the shot: timers up to this far
    /// ahead fire, in order, whatever the machine's load (the clock stands still while a
    /// fetch is pending). Default: 5 s.
    pub virtual_time: Duration,
    /// What the browser may reach. Default: [`Network::Loopback`].
    pub network: Network,
    /// The profile directory: `None` for a fresh one, removed when the browser goes; a
    /// directory kept by the caller otherwise (a second visit on the same profile finds the
    /// first one's cache there). Default: `None`.
    pub profile: Option<PathBuf>,
    /// Animated images show their first frame only (the render check's determinism).
    /// Default: `true`; a page load for the replay leaves them as a user's browser would.
    pub freeze_animations: bool,
    /// Write Chromium's NetLog (every DNS lookup and connection attempt) here. Default: none.
    pub net_log: Option<PathBuf>,
}

/// What the browser may reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Network {
    /// `verify`'s: 127.0.0.1 only.
    Loopback,
    /// The replay's: `host` resolves to `addr` and no other name resolves; a TLS server whose
    /// leaf has this SubjectPublicKeyInfo SHA-256 (base64) is trusted, by this profile only.
    Replay {
        host: String,
        addr: std::net::IpAddr,
        spki_sha256: Option<String>,
    },
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            chromium: None,
            window_width: 1024,
            window_height: 768,
            max_size: 16384,
            timeout: Duration::from_secs(30),
            virtual_time: Duration::from_secs(5),
            network: Network::Loopback,
            profile: None,
            freeze_animations: true,
            net_log: None,
        }
    }
}

/// A rendered page.
#[derive(Debug, Clone)]
pub struct Screenshot {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Whether the page was larger than [`RenderOptions::max_size`] and was cut.
    pub truncated: bool,
    /// The PNG file as Chromium encoded it.
    pub png: Vec<u8>,
}

/// Why one page could not be rendered (the browser itself may still be fine).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderError {
    /// Short, stable code: `timeout`, `protocol`, `browser-exited`, `bad-screenshot`, and for
    /// [`Browser::render_url_when`] `not-ready` (the page said why it never will be) and
    /// `unsettled` (no two captures alike).
    pub code: &'static str,
    /// What happened, for a person.
    pub message: String,
}

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} [{}]", self.message, self.code)
    }
}

impl RenderError {
    fn new(code: &'static str, message: impl Into<String>) -> Self {
        RenderError {
            code,
            message: message.into(),
        }
    }
}

/// Renders one local HTML file to a full-page PNG with a browser of its own.
///
/// For a single file (a report, a test); to render many pages, keep one [`Browser`].
pub fn render_file(file: &Path, opts: &RenderOptions) -> Result<Screenshot> {
    let mut browser = Browser::launch(opts)?;
    browser.render(file).map_err(|e| Error::Invalid {
        path: file.to_path_buf(),
        message: e.to_string(),
    })
}

/// Finds the Chromium binary, or says it is missing and how to install it.
pub fn find_chromium(opts: &RenderOptions) -> Result<PathBuf> {
    let wanted = opts
        .chromium
        .clone()
        .or_else(|| std::env::var_os(CHROMIUM_ENV).map(PathBuf::from));
    if let Some(path) = wanted {
        return if path.components().count() > 1 {
            if path.is_file() {
                Ok(path)
            } else {
                Err(Error::ChromiumMissing { path })
            }
        } else {
            search_path(&path).ok_or(Error::ChromiumMissing { path })
        };
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| search_path(Path::new(name)))
        .ok_or_else(|| Error::ChromiumMissing {
            path: PathBuf::from("chromium"),
        })
}

fn search_path(name: &Path) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// A running headless Chromium with a fresh profile, spoken to over the DevTools pipe.
///
/// One page at a time; the process and its profile directory go away on drop.
pub struct Browser {
    binary: PathBuf,
    child: Child,
    to_browser: ChildStdin,
    from_browser: Receiver<Value>,
    /// Events that arrived while waiting for a reply.
    pending: VecDeque<Value>,
    next_id: u64,
    profile: Profile,
    opts: RenderOptions,
    /// How long the page being rendered was given (what a timeout's message says).
    patience: Duration,
}

/// Where a browser keeps its profile.
enum Profile {
    /// Made for this browser under `$TMPDIR`, removed with it (or by a later run, should this
    /// one be killed: `crate::scratch`).
    Fresh(crate::scratch::Scratch),
    /// The caller's.
    Kept(PathBuf),
}

impl Profile {
    fn path(&self) -> &Path {
        match self {
            Profile::Fresh(dir) => dir.path(),
            Profile::Kept(path) => path,
        }
    }
}

impl Browser {
    /// Starts Chromium. Fails when the binary is missing or does not answer.
    pub fn launch(opts: &RenderOptions) -> Result<Browser> {
        let binary = find_chromium(opts)?;
        let profile = match &opts.profile {
            None => Profile::Fresh(
                crate::scratch::Scratch::temp("chromium")
                    .map_err(|e| Error::io(std::env::temp_dir(), e))?,
            ),
            Some(path) => {
                std::fs::create_dir_all(path).map_err(|e| Error::io(path, e))?;
                Profile::Kept(path.clone())
            }
        };
        if opts.freeze_animations {
            write_preferences(profile.path())?;
        }
        let log_path = profile.path().join("chromium.log");
        let log = std::fs::File::create(&log_path).map_err(|e| Error::io(&log_path, e))?;
        let mut child = Command::new("/bin/sh")
            .arg("-c")
            .arg(r#"exec "$0" "$@" 3<&0 4>&1 </dev/null >/dev/null"#)
            .arg(&binary)
            .args(chromium_args(profile.path(), opts))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .map_err(|e| Error::io(&binary, e))?;
        let to_browser = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, from_browser) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut message = Vec::new();
            loop {
                message.clear();
                match reader.read_until(0, &mut message) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if message.last() == Some(&0) {
                            message.pop();
                        }
                        if let Ok(value) = serde_json::from_slice(&message) {
                            if tx.send(value).is_err() {
                                return;
                            }
                        }
                    }
                }
            }
        });
        let mut browser = Browser {
            binary,
            child,
            to_browser,
            from_browser,
            pending: VecDeque::new(),
            next_id: 0,
            profile,
            opts: opts.clone(),
            patience: opts.timeout,
        };
        let deadline = Instant::now() + opts.timeout;
        if let Err(e) = browser.call("Browser.getVersion", json!({}), None, deadline) {
            return Err(Error::ChromiumFailed {
                path: browser.binary.clone(),
                message: format!("{e}; {}", browser.log_tail()),
            });
        }
        Ok(browser)
    }

    /// The binary this browser runs.
    pub fn binary(&self) -> &Path {
        &self.binary
    }

    /// Whether the browser process is still running.
    pub fn is_alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Kills the browser process at once (SIGKILL, to our own child by its id): what a crash
    /// looks like to the caller.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Renders a local HTML file in a new tab and captures the whole page.
    pub fn render(&mut self, file: &Path) -> Result<Screenshot, RenderError> {
        let absolute = std::path::absolute(file)
            .map_err(|e| RenderError::new("protocol", format!("no absolute path: {e}")))?;
        let url = url::Url::from_file_path(&absolute)
            .map_err(|()| RenderError::new("protocol", "not a file URL"))?;
        self.render_url(url.as_str())
    }

    /// Renders a URL (a `file:` URL, or `http://127.0.0.1:…` from webdiet's own server; every
    /// other host is unreachable by construction) in a new tab and captures the whole page.
    pub fn render_url(&mut self, url: &str) -> Result<Screenshot, RenderError> {
        self.render_url_within(url, self.opts.timeout)
    }

    /// [`Browser::render_url`] with `patience` for this page instead of
    /// [`RenderOptions::timeout`]: every DevTools call of the render, from opening the tab to
    /// the screenshot, must be answered before it has passed (a large page takes longer to lay
    /// out, and longer still on a busy machine). A render that runs out of it fails with the
    /// code `timeout`.
    pub fn render_url_within(
        &mut self,
        url: &str,
        patience: Duration,
    ) -> Result<Screenshot, RenderError> {
        self.patience = patience;
        let deadline = Instant::now() + patience;
        self.in_new_tab(deadline, |browser, target_id| {
            browser.render_in_target(target_id, url, deadline)
        })
    }

    /// Renders a page that is an application rather than a document (ReplayWeb.page showing
    /// an archive): on the real clock, since its service worker's loads are not fetches that
    /// virtual time waits for; captures the viewport once the JavaScript expression `ready`
    /// (polled every 250 ms) is true, and then once two captures a few frames apart are the
    /// same picture: an application paints what it has loaded over several frames (a decoded
    /// background after the frame that laid it out), later on a busy machine. `ready` may also
    /// give a string, which says why the page will never be ready (an image that failed to
    /// load): that is then the error, at once, rather than a timeout.
    pub fn render_url_when(&mut self, url: &str, ready: &str) -> Result<Screenshot, RenderError> {
        self.patience = self.opts.timeout;
        let deadline = Instant::now() + self.opts.timeout;
        self.in_new_tab(deadline, |browser, target_id| {
            let session = browser.attach(target_id, deadline)?;
            let s = Some(session.as_str());
            let (width, height) = (browser.opts.window_width, browser.opts.window_height);
            browser.call("Page.enable", json!({}), s, deadline)?;
            browser.call(
                "Emulation.setDeviceMetricsOverride",
                json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
                s,
                deadline,
            )?;
            let navigated = browser.call("Page.navigate", json!({ "url": url }), s, deadline)?;
            if let Some(error) = navigated["errorText"].as_str() {
                return Err(RenderError::new("protocol", format!("navigation: {error}")));
            }
            loop {
                let value = browser.call(
                    "Runtime.evaluate",
                    json!({ "expression": ready, "awaitPromise": true, "returnByValue": true }),
                    s,
                    deadline,
                )?;
                match &value["result"]["value"] {
                    serde_json::Value::Bool(true) => break,
                    serde_json::Value::String(why) => {
                        return Err(RenderError::new("not-ready", format!("{url}: {why}")));
                    }
                    _ => {}
                }
                if Instant::now() + Duration::from_millis(250) > deadline {
                    return Err(RenderError::new(
                        "timeout",
                        format!("{url}: not ready within {:?}", browser.opts.timeout),
                    ));
                }
                std::thread::sleep(Duration::from_millis(250));
            }
            let mut png = Vec::new();
            for _ in 0..STABLE_CAPTURES {
                browser.call(
                    "Runtime.evaluate",
                    json!({
                        "expression": "new Promise(r => requestAnimationFrame(() => \
                            requestAnimationFrame(() => setTimeout(r, 100))))",
                        "awaitPromise": true,
                    }),
                    s,
                    deadline,
                )?;
                let next = browser.capture(s, (width, height), false, deadline)?;
                if next == png {
                    return Ok(Screenshot {
                        width,
                        height,
                        truncated: false,
                        png,
                    });
                }
                png = next;
            }
            Err(RenderError::new(
                "unsettled",
                format!("{url}: no two of {STABLE_CAPTURES} captures in a row were the same"),
            ))
        })
    }

    /// A PNG of the area from the page's top left corner, `beyond_viewport` taking what lies
    /// below the window too.
    fn capture(
        &mut self,
        session: Option<&str>,
        (width, height): (u32, u32),
        beyond_viewport: bool,
        deadline: Instant,
    ) -> Result<Vec<u8>, RenderError> {
        let shot = self.call(
            "Page.captureScreenshot",
            json!({
                "format": "png",
                "captureBeyondViewport": beyond_viewport,
                "clip": { "x": 0, "y": 0, "width": width, "height": height, "scale": 1 },
            }),
            session,
            deadline,
        )?;
        shot["data"]
            .as_str()
            .and_then(base64_decode)
            .ok_or_else(|| RenderError::new("bad-screenshot", "no PNG data in the reply"))
    }

    /// Opens a local HTML file as [`Browser::render`] does, evaluates a JavaScript `expression`
    /// in it (awaited when it is a promise) and returns its value as JSON: how a test measures
    /// what a page looks like in a real browser (the report's chart labels, its width).
    pub fn evaluate_file(&mut self, file: &Path, expression: &str) -> Result<Value, RenderError> {
        let absolute = std::path::absolute(file)
            .map_err(|e| RenderError::new("protocol", format!("no absolute path: {e}")))?;
        let url = url::Url::from_file_path(&absolute)
            .map_err(|()| RenderError::new("protocol", "not a file URL"))?;
        self.patience = self.opts.timeout;
        let deadline = Instant::now() + self.opts.timeout;
        self.in_new_tab(deadline, |browser, target_id| {
            let session = browser.open_in_target(target_id, url.as_str(), deadline)?;
            let reply = browser.call(
                "Runtime.evaluate",
                json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
                Some(&session),
                deadline,
            )?;
            if let Some(e) = reply.get("exceptionDetails") {
                return Err(RenderError::new(
                    "protocol",
                    format!("the expression threw: {}", e["exception"]["description"]),
                ));
            }
            Ok(reply["result"]["value"].clone())
        })
    }

    /// Opens a blank tab, runs `visit` in it and closes the tab again (when the browser still
    /// runs: a fresh deadline, so closing is tried even when `visit` ran out of time).
    fn in_new_tab<T>(
        &mut self,
        deadline: Instant,
        visit: impl FnOnce(&mut Browser, &str) -> Result<T, RenderError>,
    ) -> Result<T, RenderError> {
        let target = self.call(
            "Target.createTarget",
            json!({ "url": "about:blank" }),
            None,
            deadline,
        )?;
        let target_id = target["targetId"].as_str().unwrap_or_default().to_string();
        let result = visit(self, &target_id);
        if self.is_alive() {
            let close_by = Instant::now() + Duration::from_secs(5);
            let _ = self.call(
                "Target.closeTarget",
                json!({ "targetId": target_id }),
                None,
                close_by,
            );
        }
        self.pending.clear();
        result
    }

    /// Attaches to a tab (flattened, so the tab's commands and events carry a session id on
    /// the browser's own pipe) and returns that session id.
    fn attach(&mut self, target_id: &str, deadline: Instant) -> Result<String, RenderError> {
        let attached = self.call(
            "Target.attachToTarget",
            json!({ "targetId": target_id, "flatten": true }),
            None,
            deadline,
        )?;
        attached["sessionId"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| {
                RenderError::new(
                    "protocol",
                    "Target.attachToTarget: no sessionId in the reply",
                )
            })
    }

    /// Opens `url` in the tab, as every render does (fixed viewport, frozen animations,
    /// virtual time, fonts loaded, two frames drawn); returns the tab's session id.
    fn open_in_target(
        &mut self,
        target_id: &str,
        url: &str,
        deadline: Instant,
    ) -> Result<String, RenderError> {
        let session = self.attach(target_id, deadline)?;
        let s = Some(session.as_str());
        let (width, height) = (self.opts.window_width, self.opts.window_height);
        self.call("Page.enable", json!({}), s, deadline)?;
        self.call(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": SAME_EVERY_TIME }),
            s,
            deadline,
        )?;
        self.call("Animation.enable", json!({}), s, deadline)?;
        self.call(
            "Animation.setPlaybackRate",
            json!({ "playbackRate": 0 }),
            s,
            deadline,
        )?;
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
            s,
            deadline,
        )?;
        // Virtual time: the page's clock stands still until it is let go, starts at a fixed
        // moment (so `Date.now()` reads the same in every render), and then runs only while
        // no fetch is pending, timers firing in order, until the budget is spent. A page whose
        // scripts add to it on timers is shot in the same state every time.
        self.call(
            "Emulation.setVirtualTimePolicy",
            json!({ "policy": "pause", "initialVirtualTime": VIRTUAL_EPOCH }),
            s,
            deadline,
        )?;
        let navigated = self.call("Page.navigate", json!({ "url": url }), s, deadline)?;
        if let Some(error) = navigated["errorText"].as_str() {
            return Err(RenderError::new("protocol", format!("navigation: {error}")));
        }
        self.call(
            "Emulation.setVirtualTimePolicy",
            json!({
                "policy": "pauseIfNetworkFetchesPending",
                "budget": self.opts.virtual_time.as_millis() as u64,
            }),
            s,
            deadline,
        )?;
        self.wait_event("Emulation.virtualTimeBudgetExpired", s, deadline)?;
        self.wait_event("Page.loadEventFired", s, deadline)?;
        // Web fonts and two frames, so late layout and paint have happened (the clock stays
        // paused: frames are drawn, timers do not fire).
        self.call(
            "Runtime.evaluate",
            json!({
                "expression": "document.fonts.ready.then(() => new Promise(r => \
                    requestAnimationFrame(() => requestAnimationFrame(r))))",
                "awaitPromise": true,
            }),
            s,
            deadline,
        )?;
        Ok(session)
    }

    fn render_in_target(
        &mut self,
        target_id: &str,
        url: &str,
        deadline: Instant,
    ) -> Result<Screenshot, RenderError> {
        let session = self.open_in_target(target_id, url, deadline)?;
        let s = Some(session.as_str());
        let (width, height) = (self.opts.window_width, self.opts.window_height);
        let metrics = self.call("Page.getLayoutMetrics", json!({}), s, deadline)?;
        let content = &metrics["cssContentSize"];
        let page_width = content["width"].as_f64().unwrap_or(0.0).ceil() as u32;
        let page_height = content["height"].as_f64().unwrap_or(0.0).ceil() as u32;
        let max = self.opts.max_size;
        let full_width = page_width.max(width);
        let full_height = page_height.max(height);
        let truncated = full_width > max || full_height > max;
        let (shot_width, shot_height) = (full_width.min(max), full_height.min(max));
        let png = self.capture(s, (shot_width, shot_height), true, deadline)?;
        Ok(Screenshot {
            width: shot_width,
            height: shot_height,
            truncated,
            png,
        })
    }

    /// Sends one command and waits for its reply; events seen meanwhile are kept.
    fn call(
        &mut self,
        method: &str,
        params: Value,
        session: Option<&str>,
        deadline: Instant,
    ) -> Result<Value, RenderError> {
        let id = self.send(method, params, session)?;
        loop {
            let reply = self.receive(method, deadline)?;
            if reply["id"].as_u64() == Some(id) {
                if let Some(error) = reply.get("error") {
                    return Err(RenderError::new(
                        "protocol",
                        format!("{method}: {}", error["message"].as_str().unwrap_or("error")),
                    ));
                }
                return Ok(reply["result"].clone());
            }
            if reply.get("method").is_some() {
                self.pending.push_back(reply);
            }
        }
    }

    /// Sends one command without waiting; returns its id.
    fn send(
        &mut self,
        method: &str,
        params: Value,
        session: Option<&str>,
    ) -> Result<u64, RenderError> {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        let mut bytes = serde_json::to_vec(&message).expect("a JSON value serializes");
        bytes.push(0);
        self.to_browser
            .write_all(&bytes)
            .and_then(|()| self.to_browser.flush())
            .map_err(|e| RenderError::new("browser-exited", format!("{method}: {e}")))?;
        Ok(id)
    }

    /// Waits for an event of a session; other events seen meanwhile are kept for a later wait.
    fn wait_event(
        &mut self,
        method: &str,
        session: Option<&str>,
        deadline: Instant,
    ) -> Result<Value, RenderError> {
        let matches = |event: &Value| {
            event["method"].as_str() == Some(method)
                && (session.is_none() || event["sessionId"].as_str() == session)
        };
        if let Some(i) = self.pending.iter().position(matches) {
            return Ok(self.pending.remove(i).expect("index is in range"));
        }
        loop {
            let event = self.receive(method, deadline)?;
            if matches(&event) {
                return Ok(event);
            }
            if event.get("method").is_some() {
                self.pending.push_back(event);
            }
        }
    }

    /// The next message from the browser. `alert()`, `confirm()` and `prompt()` dialogs
    /// would stop the page until answered; they are accepted here, unseen by the caller.
    fn receive(&mut self, waiting_for: &str, deadline: Instant) -> Result<Value, RenderError> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let value = self.receive_any(waiting_for, left)?;
            if value["method"].as_str() == Some("Page.javascriptDialogOpening") {
                let session = value["sessionId"].as_str().map(str::to_string);
                self.send(
                    "Page.handleJavaScriptDialog",
                    json!({ "accept": true }),
                    session.as_deref(),
                )?;
                continue;
            }
            return Ok(value);
        }
    }

    fn receive_any(&mut self, waiting_for: &str, left: Duration) -> Result<Value, RenderError> {
        match self.from_browser.recv_timeout(left) {
            Ok(value) => Ok(value),
            Err(RecvTimeoutError::Timeout) => Err(RenderError::new(
                "timeout",
                format!(
                    "{waiting_for}: no answer within {} s",
                    // 30 s as "30", a page's scaled patience to a tenth.
                    match self.patience.subsec_millis() {
                        0 => self.patience.as_secs().to_string(),
                        _ => format!("{:.1}", self.patience.as_secs_f64()),
                    }
                ),
            )),
            Err(RecvTimeoutError::Disconnected) => Err(RenderError::new(
                "browser-exited",
                format!("{waiting_for}: chromium exited; {}", self.log_tail()),
            )),
        }
    }

    /// The last lines Chromium wrote to stderr, for error messages.
    fn log_tail(&self) -> String {
        let log =
            std::fs::read_to_string(self.profile.path().join("chromium.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().rev().take(3).collect();
        if lines.is_empty() {
            "it printed nothing".to_string()
        } else {
            let tail: Vec<&str> = lines.into_iter().rev().collect();
            format!("it said: {}", tail.join(" | "))
        }
    }
}

impl Drop for Browser {
    /// Asks Chromium to close (so its helper processes leave the profile alone), then kills
    /// it if it has not gone within two seconds.
    fn drop(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(2);
        let _ = self.call("Browser.close", json!({}), None, deadline);
        while Instant::now() < deadline {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn chromium_args(profile: &Path, opts: &RenderOptions) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "--headless".into(),
        "--no-sandbox".into(),
        "--disable-gpu".into(),
        "--hide-scrollbars".into(),
        "--mute-audio".into(),
        "--no-first-run".into(),
        "--no-default-browser-check".into(),
        "--disable-background-networking".into(),
        "--disable-component-update".into(),
        "--disable-sync".into(),
        "--disable-quic".into(),
        "--disable-extensions".into(),
        "--disable-default-apps".into(),
        "--force-color-profile=srgb".into(),
        "--force-device-scale-factor=1".into(),
        "--remote-debugging-pipe".into(),
        format!("--user-data-dir={}", profile.display()),
        format!("--window-size={},{}", opts.window_width, opts.window_height),
    ];
    match &opts.network {
        Network::Loopback => args.extend([
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1".to_string(),
            "--proxy-server=http://127.0.0.1:9".to_string(),
            // Renders that are compared pixel by pixel: a tile is always rastered whole. With
            // partial raster, a tile invalidated while the page loads (an image decoded, a
            // script's text) is rastered again only inside the invalidated rectangle, and
            // anti-aliased edges across that rectangle's border (rounded corners) come out a
            // level apart from a whole raster; which happens depends on timing, so under load
            // the same page rendered twice differed (docs/markup.md).
            "--disable-partial-raster".to_string(),
            // Every frame in the page's own renderer: a frame from another host (unreachable,
            // so an error page) rendered in a process of its own is outside the page's virtual
            // time, and the page's frames never settled (`Runtime.evaluate` timed out on any
            // page framing another site, such as Space Jam's studio store page).
            "--disable-site-isolation-trials".to_string(),
            "--disable-features=IsolateOrigins,site-per-process".to_string(),
        ]),
        Network::Replay {
            host,
            addr,
            spki_sha256,
        } => {
            args.extend([
                // Every other host, address literals and loopback included (the rules apply to
                // them too), fails to resolve: no connection is even attempted.
                format!("--host-resolver-rules=MAP {host} {addr}, MAP * ~NOTFOUND"),
                "--no-proxy-server".to_string(),
                // Nothing but the page: no pings, reports, phishing checks, hints, metrics,
                // crash uploads, and no throttling of the tab (the link is the emulator's).
                "--no-pings".to_string(),
                "--disable-domain-reliability".to_string(),
                "--disable-client-side-phishing-detection".to_string(),
                "--disable-breakpad".to_string(),
                "--metrics-recording-only".to_string(),
                "--disable-features=OptimizationHints,Translate,MediaRouter,\
                 DialMediaRouteProvider,AutofillServerCommunication,NetworkTimeServiceQuerying"
                    .to_string(),
                "--disable-background-timer-throttling".to_string(),
                "--disable-renderer-backgrounding".to_string(),
                "--disable-backgrounding-occluded-windows".to_string(),
            ]);
            if let Some(spki) = spki_sha256 {
                args.push(format!("--ignore-certificate-errors-spki-list={spki}"));
            }
        }
    }
    if let Some(file) = &opts.net_log {
        args.push(format!("--log-net-log={}", file.display()));
        args.push("--net-log-capture-mode=Default".to_string());
    }
    args.push("about:blank".into());
    args
}

/// The profile's preferences: animated images show their first frame only.
fn write_preferences(profile: &Path) -> Result<()> {
    let dir = profile.join("Default");
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let prefs = json!({ "settings": { "a11y": { "animation_policy": "none" } } });
    let path = dir.join("Preferences");
    std::fs::write(&path, prefs.to_string()).map_err(|e| Error::io(&path, e))
}

/// Encodes standard base64 with padding (a certificate's key hash for Chromium's flags).
pub fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.len();
        let acc = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= n {
                out.push(ALPHABET[(acc >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes standard base64 (the screenshot data); `None` on anything malformed.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    fn value(c: u8) -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some(u32::from(c - b'A')),
            b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    }
    let bytes = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut acc = 0u32;
        for &c in chunk {
            acc = (acc << 6) | value(c)?;
        }
        match chunk.len() {
            4 => out.extend_from_slice(&[(acc >> 16) as u8, (acc >> 8) as u8, acc as u8]),
            3 => out.extend_from_slice(&[(acc >> 10) as u8, (acc >> 2) as u8]),
            2 => out.push((acc >> 4) as u8),
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_known_values() {
        assert_eq!(base64_decode("").unwrap(), b"");
        assert_eq!(base64_decode("Zg==").unwrap(), b"f");
        assert_eq!(base64_decode("Zm8=").unwrap(), b"fo");
        assert_eq!(base64_decode("Zm9v").unwrap(), b"foo");
        assert_eq!(base64_decode("Zm9vYmFy").unwrap(), b"foobar");
        assert_eq!(base64_decode("/+8=").unwrap(), [0xff, 0xef]);
        assert!(base64_decode("Zm9v!").is_none());
        assert!(base64_decode("Z").is_none());
        for text in [
            &b""[..],
            b"f",
            b"fo",
            b"foo",
            b"foob",
            b"fooba",
            b"foobar",
            &[0xff, 0xef],
        ] {
            assert_eq!(base64_decode(&base64_encode(text)).unwrap(), text);
        }
        assert_eq!(base64_encode(b"fo"), "Zm8=");
    }

    #[test]
    fn a_chromium_path_that_does_not_exist_is_reported_missing() {
        let opts = RenderOptions {
            chromium: Some(PathBuf::from("/nonexistent/chromium")),
            ..RenderOptions::default()
        };
        assert!(matches!(
            find_chromium(&opts),
            Err(Error::ChromiumMissing { .. })
        ));
    }
}
