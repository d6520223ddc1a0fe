//! Server CPU for TLS: per handshake (full and resumed, TLS 1.3 and 1.2) and per megabyte
//! encrypted (AES-128-GCM and ChaCha20-Poly1305), with webdiet's own TLS transport and
//! certificates. Client and server sessions talk in memory (no sockets), and only the time
//! spent in the server's calls is counted, so the figures are the server's CPU.
//! Not a test: it prints figures. Run with `cargo bench --bench tls`.

use std::time::{Duration, Instant};

use webdiet::replay::transport::tls::{self, Session, TlsSetup};
use webdiet::replay::{Cipher, TlsOptions, TlsVersion};

/// Moves bytes between the two sessions until both have finished their handshakes and the
/// client has read what followed (TLS 1.3 tickets). Returns the time spent in the server.
fn handshake(client: &mut Session, server: &mut Session) -> Duration {
    let mut in_server = Duration::ZERO;
    let mut sink = Vec::new();
    for _ in 0..10 {
        let up = client.pending().expect("client flight");
        if !up.is_empty() {
            let t = Instant::now();
            server.open(&up, &mut sink).expect("server reads");
            in_server += t.elapsed();
        }
        let t = Instant::now();
        let down = server.pending().expect("server flight");
        in_server += t.elapsed();
        if !down.is_empty() {
            client.open(&down, &mut sink).expect("client reads");
        }
        if !client.is_handshaking() && !server.is_handshaking() && up.is_empty() && down.is_empty()
        {
            break;
        }
    }
    in_server
}

fn handshakes(opts: &TlsOptions, resumed: bool, n: u32) -> Duration {
    let setup = TlsSetup::new(opts).expect("TLS setup");
    let mut total = Duration::ZERO;
    for i in 0..=n {
        if !resumed {
            setup.client.new_visit();
        }
        let mut client = setup.client.session(Duration::ZERO, None).expect("client");
        let mut server = tls::server_session(&setup.server).expect("server");
        let t = handshake(&mut client, &mut server);
        assert_eq!(client.resumed(), resumed && i > 0, "{opts:?}");
        // The first of a resumed series is the full handshake that leaves the session.
        if i > 0 {
            total += t;
        }
    }
    total / n
}

fn per_megabyte(opts: &TlsOptions) -> (f64, f64) {
    let setup = TlsSetup::new(opts).expect("TLS setup");
    let mut client = setup.client.session(Duration::ZERO, None).expect("client");
    let mut server = tls::server_session(&setup.server).expect("server");
    handshake(&mut client, &mut server);
    let flush = vec![b'x'; 64 << 10];
    let megabytes = 64;
    let mut sealed = Vec::new();
    let t = Instant::now();
    for _ in 0..megabytes * 16 {
        sealed.push(server.seal(&flush, false).expect("seal"));
    }
    let seal = t.elapsed();
    let mut plain = Vec::with_capacity(flush.len());
    let t = Instant::now();
    for records in &sealed {
        plain.clear();
        client.open(records, &mut plain).expect("open");
    }
    let open = t.elapsed();
    (
        seal.as_secs_f64() * 1000.0 / megabytes as f64,
        open.as_secs_f64() * 1000.0 / megabytes as f64,
    )
}

fn main() {
    let n = 200;
    println!("server CPU per handshake (mean of {n}, in-memory, Ed25519 certificates, X25519):");
    for version in [TlsVersion::V13, TlsVersion::V12] {
        let opts = TlsOptions {
            version,
            ..TlsOptions::default()
        };
        let full = handshakes(&opts, false, n);
        let resumed = handshakes(&opts, true, n);
        println!(
            "  TLS {}: full {:.0} µs, resumed {:.0} µs",
            version.as_str(),
            full.as_secs_f64() * 1e6,
            resumed.as_secs_f64() * 1e6
        );
    }
    println!("per MB of response, in 64 KiB flushes (TLS 1.3):");
    for cipher in [Cipher::AesGcm, Cipher::Chacha20] {
        let opts = TlsOptions {
            cipher,
            ..TlsOptions::default()
        };
        let (seal, open) = per_megabyte(&opts);
        println!(
            "  {}: server encrypts {seal:.2} ms/MB, client decrypts {open:.2} ms/MB",
            cipher.as_str()
        );
    }
}
