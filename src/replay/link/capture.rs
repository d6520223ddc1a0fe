//! `--capture`: tcpdump on the device a replay's packets cross (the private loopback's `lo`,
//! or an emulated link's client device), for as long as the capture lives.

use std::process::{Command, Stdio};

/// tcpdump on one device (`lo`, or an emulated link's `wd-client`) for as long as it lives
/// (`--immediate-mode`, or the tail is lost).
pub struct Capture {
    child: std::process::Child,
    /// Kept open until tcpdump has exited, so its closing statistics do not hit a closed pipe.
    _stderr: Option<std::io::BufReader<std::process::ChildStderr>>,
}

impl Capture {
    /// Starts tcpdump on `device` in the calling thread's network namespace, writing `file`,
    /// and returns once it listens.
    pub fn start(file: &std::path::Path, device: &str) -> crate::error::Result<Self> {
        use std::io::BufRead;
        let mut child = Command::new("tcpdump")
            .args([
                "-i",
                device,
                "-n",
                "-s",
                "128",
                "--immediate-mode",
                "-U",
                "-w",
            ])
            .arg(file)
            .arg("tcp")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| crate::error::Error::io("tcpdump", e))?;
        // tcpdump says "listening on lo" once it has opened the interface: only then may the
        // first packet be sent.
        let mut stderr = child.stderr.take().map(std::io::BufReader::new);
        if let Some(reader) = stderr.as_mut() {
            let mut line = String::new();
            while reader.read_line(&mut line).map(|n| n > 0).unwrap_or(false) {
                if line.contains("listening on") {
                    break;
                }
                line.clear();
            }
        }
        Ok(Capture {
            child,
            _stderr: stderr,
        })
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        // Let the last packets reach the file, then stop tcpdump (our own child, by its id).
        std::thread::sleep(std::time::Duration::from_millis(300));
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}
