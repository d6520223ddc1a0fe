//! TLS for the replay (rustls with the *ring* provider): the modes over TLS (`https*`, `h2`,
//! `h2-push`, `h2-hints`) run their HTTP/1 or HTTP/2 halves over this, unchanged. Everything a
//! TLS run needs is made in memory for that run and never written anywhere: a throwaway CA
//! and a leaf certificate for [`HOST`], both Ed25519 for webdiet's robot (fixed signature
//! size, so the handshake has the same bytes on every run) or both ECDSA P-256 for Chromium,
//! which accepts no Ed25519 certificate ([`KeyType`]); the server's config (one protocol
//! version and one cipher suite: others are refused) and the client's, which trusts only that
//! CA.
//!
//! A [`Session`] seals what a side writes into TLS records (each write of the protocol becomes
//! exactly one write on the socket, records and all, as over cleartext TCP) and opens what it
//! reads one record at a time, so that records without data — the server's session tickets,
//! close_notify — are told apart from the HTTP exchange and counted as TLS's own.
//!
//! Resumption as a browser does it ([`Sessions`]): within one visit, the first connection makes
//! a full handshake and every later one waits until there is a session to resume (Chrome makes
//! parallel connections to a host wait for the first handshake for the same reason), so that
//! every connection after the first resumes, on every run.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use rustls::client::{ClientSessionStore, Resumption};
use rustls::crypto::ring as provider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use rustls::{ClientConfig, ClientConnection, Connection, RootCertStore, ServerConfig};
use serde::{Deserialize, Serialize};

use crate::replay::meter::{Flight, Framing, Handshake};

/// The host name the leaf certificate is for, and the client's SNI.
pub const HOST: &str = "replay.webdiet.test";

/// The TLS protocol version of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TlsVersion {
    #[serde(rename = "1.2")]
    V12,
    #[serde(rename = "1.3")]
    V13,
}

impl TlsVersion {
    pub fn as_str(self) -> &'static str {
        match self {
            TlsVersion::V12 => "1.2",
            TlsVersion::V13 => "1.3",
        }
    }
}

/// The AEAD of a run: the modern form of the 1998 study's 40-bit against 128-bit keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cipher {
    /// AES-128-GCM.
    AesGcm,
    /// ChaCha20-Poly1305.
    Chacha20,
}

impl Cipher {
    pub fn as_str(self) -> &'static str {
        match self {
            Cipher::AesGcm => "aes-gcm",
            Cipher::Chacha20 => "chacha20",
        }
    }
}

/// How the HTTPS modes use TLS (`--tls`, `--resumption`, `--cipher`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TlsOptions {
    /// Default: 1.3.
    pub version: TlsVersion,
    /// Every connection of a visit after the first resumes the session (TLS 1.3 tickets,
    /// TLS 1.2 session IDs). Default: on.
    pub resumption: bool,
    /// Default: AES-GCM.
    pub cipher: Cipher,
    /// How long a TLS handshake may take on the server before the connection is dropped
    /// (the slow-loris bound of the handshake). Default: 10 s.
    pub handshake_timeout: Duration,
    /// With resumption: every visit starts with a session to resume, from an uncounted
    /// connection made just before it (a browser back on a host it saw a moment ago; the
    /// document-size study's "resumed" variant). Default: `false`.
    #[serde(default)]
    pub warm: bool,
    /// The certificates' key type. Default: Ed25519.
    #[serde(default)]
    pub key: KeyType,
}

/// The key type of the run's certificates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyType {
    /// Ed25519: the smallest chain, so the handshake's bytes are TLS's own.
    #[default]
    Ed25519,
    /// ECDSA P-256: for Chromium, which accepts no Ed25519 certificate (`--client chromium`).
    EcdsaP256,
}

impl Default for TlsOptions {
    fn default() -> Self {
        TlsOptions {
            version: TlsVersion::V13,
            resumption: true,
            cipher: Cipher::AesGcm,
            handshake_timeout: Duration::from_secs(10),
            warm: false,
            key: KeyType::Ed25519,
        }
    }
}

impl TlsOptions {
    /// The cipher suite both ends are limited to.
    pub fn suite(&self) -> rustls::SupportedCipherSuite {
        use provider::cipher_suite as cs;
        match (self.version, self.cipher) {
            (TlsVersion::V13, Cipher::AesGcm) => cs::TLS13_AES_128_GCM_SHA256,
            (TlsVersion::V13, Cipher::Chacha20) => cs::TLS13_CHACHA20_POLY1305_SHA256,
            (TlsVersion::V12, Cipher::AesGcm) => cs::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
            (TlsVersion::V12, Cipher::Chacha20) => {
                cs::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256
            }
        }
    }

    /// The cipher suite's IANA name (`TLS13_AES_128_GCM_SHA256`).
    pub fn suite_name(&self) -> String {
        format!("{:?}", self.suite().suite())
    }

    /// What the record layer adds to each record: 5 bytes of header and a 16-byte tag, plus
    /// the inner content type in TLS 1.3, plus the 8-byte explicit nonce of TLS 1.2's AES-GCM
    /// (TLS 1.2's ChaCha20 has none).
    pub fn framing(&self) -> Framing {
        Framing::tls(match (self.version, self.cipher) {
            (TlsVersion::V13, _) => 5 + 1 + 16,
            (TlsVersion::V12, Cipher::AesGcm) => 5 + 8 + 16,
            (TlsVersion::V12, Cipher::Chacha20) => 5 + 16,
        })
    }

    /// A short name for reports: `TLS 1.3, aes-gcm, resumption on`.
    pub fn describe(&self) -> String {
        format!(
            "TLS {}, {}, resumption {}",
            self.version.as_str(),
            self.cipher.as_str(),
            if self.resumption { "on" } else { "off" }
        )
    }
}

/// The ALPN name of HTTP/2 over TLS (RFC 9113 §3.2).
pub const ALPN_H2: &[u8] = b"h2";

/// Both ends' configurations for one run, with the throwaway certificates inside them.
#[derive(Debug)]
pub struct TlsSetup {
    pub server: Arc<ServerConfig>,
    pub client: TlsClient,
    /// The certificate chain the server sends (leaf, then the CA), in bytes of DER.
    pub chain_bytes: Vec<usize>,
    /// SHA-256 of the leaf's SubjectPublicKeyInfo: what a browser is told to trust
    /// (`--ignore-certificate-errors-spki-list`), for its profile only.
    pub leaf_spki_sha256: Vec<u8>,
    pub options: TlsOptions,
}

/// TLS 1.3 tickets the server sends after each handshake (rustls's default); each resumes
/// one connection.
pub const TLS13_TICKETS: usize = 2;

/// The client's side: its config, the name it asks for, and its session cache.
#[derive(Debug)]
pub struct TlsClient {
    config: Arc<ClientConfig>,
    sessions: Arc<Sessions>,
    pub framing: Framing,
    resumption: bool,
    /// Each visit starts with a session to resume ([`TlsOptions::warm`]).
    pub warm: bool,
}

/// Why TLS could not be set up.
pub type SetupError = String;

impl TlsSetup {
    /// Makes a CA and a leaf for [`HOST`] and the two configs, limited to `opts`'s version and
    /// cipher suite.
    pub fn new(opts: &TlsOptions) -> Result<TlsSetup, SetupError> {
        let fail = |what: &str, e: &dyn std::fmt::Display| format!("TLS setup: {what}: {e}");
        let alg = match opts.key {
            KeyType::Ed25519 => &rcgen::PKCS_ED25519,
            KeyType::EcdsaP256 => &rcgen::PKCS_ECDSA_P256_SHA256,
        };
        let ca_key = rcgen::KeyPair::generate_for(alg).map_err(|e| fail("CA key", &e))?;
        let mut ca_params = rcgen::CertificateParams::default();
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca_params.key_usages = vec![
            rcgen::KeyUsagePurpose::KeyCertSign,
            rcgen::KeyUsagePurpose::CrlSign,
        ];
        ca_params.distinguished_name = rcgen::DistinguishedName::new();
        ca_params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "webdiet replay CA");
        ca_params.serial_number = Some(rcgen::SerialNumber::from(1u64));
        let ca = ca_params
            .self_signed(&ca_key)
            .map_err(|e| fail("CA certificate", &e))?;
        let leaf_key = rcgen::KeyPair::generate_for(alg).map_err(|e| fail("leaf key", &e))?;
        let mut leaf_params = rcgen::CertificateParams::new(vec![HOST.to_string()])
            .map_err(|e| fail("leaf name", &e))?;
        leaf_params.distinguished_name = rcgen::DistinguishedName::new();
        leaf_params
            .distinguished_name
            .push(rcgen::DnType::CommonName, HOST);
        leaf_params.serial_number = Some(rcgen::SerialNumber::from(2u64));
        let leaf = leaf_params
            .signed_by(&leaf_key, &ca, &ca_key)
            .map_err(|e| fail("leaf certificate", &e))?;
        let chain: Vec<CertificateDer<'static>> = vec![leaf.der().clone(), ca.der().clone()];
        let chain_bytes = chain.iter().map(|c| c.len()).collect();
        // SHA-256 by the provider's own hash (that of TLS13_AES_128_GCM_SHA256).
        let leaf_spki_sha256 = provider::cipher_suite::TLS13_AES_128_GCM_SHA256
            .tls13()
            .map(|s| {
                s.common
                    .hash_provider
                    .hash(&leaf_key.public_key_der())
                    .as_ref()
                    .to_vec()
            })
            .unwrap_or_default();

        let crypto = Arc::new(rustls::crypto::CryptoProvider {
            cipher_suites: vec![opts.suite()],
            ..provider::default_provider()
        });
        let versions: &[&rustls::SupportedProtocolVersion] = match opts.version {
            TlsVersion::V12 => &[&rustls::version::TLS12],
            TlsVersion::V13 => &[&rustls::version::TLS13],
        };
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der()));
        let mut server = ServerConfig::builder_with_provider(crypto.clone())
            .with_protocol_versions(versions)
            .map_err(|e| fail("server versions", &e))?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(|e| fail("server certificate", &e))?;
        // ALPN: h2 for the HTTP/2 mode over TLS; a client that offers nothing (the HTTP/1
        // modes, as the 1998 study's clients) negotiates nothing.
        server.alpn_protocols = vec![ALPN_H2.to_vec(), b"http/1.1".to_vec()];
        if opts.resumption {
            // Stateful resumption (session IDs in 1.2, ticket IDs in 1.3): rustls's default
            // store, and its default of two TLS 1.3 tickets per connection, named because the
            // simulator's recording counts them.
            server.session_storage = rustls::server::ServerSessionMemoryCache::new(1024);
            server.send_tls13_tickets = TLS13_TICKETS;
        } else {
            server.session_storage = Arc::new(rustls::server::NoServerSessionStorage {});
            server.send_tls13_tickets = 0;
        }

        let mut roots = RootCertStore::empty();
        roots
            .add(ca.der().clone())
            .map_err(|e| fail("trust anchor", &e))?;
        let mut client = ClientConfig::builder_with_provider(crypto)
            .with_protocol_versions(versions)
            .map_err(|e| fail("client versions", &e))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        let sessions = Arc::new(Sessions::default());
        client.resumption = if opts.resumption {
            Resumption::store(sessions.clone())
        } else {
            Resumption::disabled()
        };
        Ok(TlsSetup {
            server: Arc::new(server),
            client: TlsClient {
                config: Arc::new(client),
                sessions,
                framing: opts.framing(),
                resumption: opts.resumption,
                warm: opts.warm && opts.resumption,
            },
            chain_bytes,
            leaf_spki_sha256,
            options: *opts,
        })
    }
}

impl TlsClient {
    /// The same client offering `protocols` by ALPN (none: the configuration as it is), with
    /// a session cache of its own.
    pub fn with_alpn(&self, protocols: &[&[u8]]) -> TlsClient {
        let mut config = (*self.config).clone();
        let sessions = Arc::new(Sessions::default());
        config.alpn_protocols = protocols.iter().map(|p| p.to_vec()).collect();
        if self.resumption {
            config.resumption = Resumption::store(sessions.clone());
        }
        TlsClient {
            config: Arc::new(config),
            sessions,
            framing: self.framing,
            resumption: self.resumption,
            warm: self.warm,
        }
    }

    /// Forgets every session: the next connection makes a full handshake (a new visit).
    pub fn new_visit(&self) {
        self.sessions.reset();
    }

    /// Whether there is a session to resume now.
    pub fn has_session(&self) -> bool {
        self.sessions
            .state
            .lock()
            .map(|s| s.available())
            .unwrap_or(false)
    }

    /// A client session for a new connection: the first of a visit goes ahead with a full
    /// handshake; later ones wait (at most `wait`) until there is a session to resume.
    /// `queued` is the connection's place in the robot's queue where several open at once
    /// (HTTP/1.0's pool): then the first in the queue is the one that goes ahead, whichever
    /// thread asks first, so the same visit makes the same handshakes on every run.
    pub fn session(&self, wait: Duration, queued: Option<u64>) -> io::Result<Session> {
        let claim = if self.resumption {
            self.sessions.claim(wait, queued)
        } else {
            Claim::default()
        };
        let name = ServerName::try_from(HOST).map_err(io::Error::other)?;
        let conn = ClientConnection::new(self.config.clone(), name);
        if claim.reserved {
            self.sessions.release();
        }
        let mut conn = conn.map_err(io::Error::other)?;
        conn.set_buffer_limit(None);
        Ok(Session::new(Connection::Client(conn)))
    }
}

/// The client's session cache, counted, so that a connection can wait for something to
/// resume. At most one TLS 1.2 session and any number of TLS 1.3 tickets (each used once).
#[derive(Debug, Default)]
pub struct Sessions {
    state: Mutex<SessionState>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct SessionState {
    /// A connection of this visit has started (it makes the full handshake).
    started: bool,
    tls12: Option<rustls::client::Tls12ClientSessionValue>,
    tls13: Vec<rustls::client::Tls13ClientSessionValue>,
    /// Tickets promised to connections being set up and not yet taken.
    reserved: usize,
    kx_hint: Option<rustls::NamedGroup>,
}

/// What [`Sessions::claim`] promised.
#[derive(Debug, Default, Clone, Copy)]
struct Claim {
    reserved: bool,
}

impl SessionState {
    fn available(&self) -> bool {
        self.tls12.is_some() || self.tls13.len() > self.reserved
    }
}

impl Sessions {
    fn reset(&self) {
        if let Ok(mut s) = self.state.lock() {
            *s = SessionState::default();
        }
    }

    /// Whether a new connection can resume: the first connection of a visit goes ahead at
    /// once (it makes the full handshake); later ones wait for a session, at most `wait`
    /// (a full handshake then), and reserve a TLS 1.3 ticket so that no other takes it. The
    /// first is the first to ask, or, for a connection `queued` in the robot's queue, the
    /// first in the queue (0).
    fn claim(&self, wait: Duration, queued: Option<u64>) -> Claim {
        let Ok(mut s) = self.state.lock() else {
            return Claim::default();
        };
        if !s.started && queued.is_none_or(|seq| seq == 0) {
            s.started = true;
            return Claim::default();
        }
        let deadline = Instant::now() + wait;
        while !s.available() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Claim::default();
            }
            s = match self.changed.wait_timeout(s, left) {
                Ok((s, _)) => s,
                Err(_) => return Claim::default(),
            };
        }
        let reserved = s.tls12.is_none();
        if reserved {
            s.reserved += 1;
        }
        Claim { reserved }
    }

    /// The reserved ticket has been taken by the connection it was reserved for.
    fn release(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.reserved = s.reserved.saturating_sub(1);
        }
    }

    fn update(&self, f: impl FnOnce(&mut SessionState)) {
        if let Ok(mut s) = self.state.lock() {
            f(&mut s);
        }
        self.changed.notify_all();
    }
}

impl ClientSessionStore for Sessions {
    fn set_kx_hint(&self, _: ServerName<'static>, group: rustls::NamedGroup) {
        self.update(|s| s.kx_hint = Some(group));
    }

    fn kx_hint(&self, _: &ServerName<'_>) -> Option<rustls::NamedGroup> {
        self.state.lock().ok()?.kx_hint
    }

    fn set_tls12_session(
        &self,
        _: ServerName<'static>,
        value: rustls::client::Tls12ClientSessionValue,
    ) {
        self.update(|s| s.tls12 = Some(value));
    }

    fn tls12_session(&self, _: &ServerName<'_>) -> Option<rustls::client::Tls12ClientSessionValue> {
        self.state.lock().ok()?.tls12.clone()
    }

    fn remove_tls12_session(&self, _: &ServerName<'static>) {
        self.update(|s| s.tls12 = None);
    }

    fn insert_tls13_ticket(
        &self,
        _: ServerName<'static>,
        value: rustls::client::Tls13ClientSessionValue,
    ) {
        self.update(|s| {
            // A bound, as the trait asks: far more than one visit's connections use at once.
            if s.tls13.len() >= 64 {
                s.tls13.remove(0);
            }
            s.tls13.push(value);
        });
    }

    fn take_tls13_ticket(
        &self,
        _: &ServerName<'static>,
    ) -> Option<rustls::client::Tls13ClientSessionValue> {
        self.state.lock().ok()?.tls13.pop()
    }
}

/// The server's TLS, when its connections carry TLS.
#[derive(Debug, Clone)]
pub struct ServerTls {
    pub config: Arc<ServerConfig>,
    /// How long the whole handshake may take.
    pub handshake_timeout: Duration,
}

/// A server session for an accepted connection.
pub fn server_session(config: &Arc<ServerConfig>) -> io::Result<Session> {
    let mut conn = rustls::ServerConnection::new(config.clone()).map_err(io::Error::other)?;
    conn.set_buffer_limit(None);
    Ok(Session::new(Connection::Server(conn)))
}

/// What opening records gave.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Opened {
    /// Plaintext bytes delivered.
    pub plain: usize,
    /// TCP payload bytes of records that delivered nothing and did not close: handshake
    /// messages after the handshake (session tickets).
    pub other: u64,
}

/// One side of a TLS connection.
#[derive(Debug)]
pub struct Session {
    conn: Connection,
    /// Ciphertext read and not yet opened (less than one record).
    raw: Vec<u8>,
    /// The peer's close_notify arrived.
    pub peer_closed: bool,
}

/// A TLS error as an I/O error of kind `InvalidData`.
fn invalid(e: rustls::Error) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e)
}

impl Session {
    fn new(conn: Connection) -> Self {
        Session {
            conn,
            raw: Vec::new(),
            peer_closed: false,
        }
    }

    pub fn is_handshaking(&self) -> bool {
        self.conn.is_handshaking()
    }

    /// Whether this side made a resumed handshake.
    pub fn resumed(&self) -> bool {
        self.conn.handshake_kind() == Some(rustls::HandshakeKind::Resumed)
    }

    /// The negotiated cipher suite, by its IANA name.
    pub fn suite(&self) -> Option<String> {
        self.conn
            .negotiated_cipher_suite()
            .map(|s| format!("{:?}", s.suite()))
    }

    /// The protocol the handshake negotiated by ALPN, if any.
    pub fn alpn(&self) -> Option<&[u8]> {
        self.conn.alpn_protocol()
    }

    /// The records waiting to be sent (a handshake flight, an alert), as one buffer.
    pub fn pending(&mut self) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        while self.conn.wants_write() {
            self.conn.write_tls(&mut out)?;
        }
        Ok(out)
    }

    /// Seals `plain` (and then a close_notify when `close`) into records: one buffer, so that
    /// it goes out in one socket write.
    pub fn seal(&mut self, plain: &[u8], close: bool) -> io::Result<Vec<u8>> {
        if !plain.is_empty() {
            self.conn.writer().write_all(plain)?;
        }
        if close {
            self.conn.send_close_notify();
        }
        self.pending()
    }

    /// Whether part of a record has arrived and the rest has not.
    pub fn holds_partial(&self) -> bool {
        !self.raw.is_empty()
    }

    /// Opens what arrived, record by record, appending plaintext to `into`.
    pub fn open(&mut self, cipher: &[u8], into: &mut Vec<u8>) -> io::Result<Opened> {
        self.raw.extend_from_slice(cipher);
        let mut opened = Opened::default();
        loop {
            if self.raw.len() < 5 {
                break;
            }
            if !looks_like_tls(&self.raw) {
                // Not TLS at all (plaintext HTTP, garbage): rustls says so now, rather than
                // after waiting for the "record" its first bytes announce.
                let record: Vec<u8> = std::mem::take(&mut self.raw);
                self.conn.read_tls(&mut record.as_slice())?;
                self.conn.process_new_packets().map_err(invalid)?;
                return Err(io::Error::new(io::ErrorKind::InvalidData, "not TLS"));
            }
            let len = 5 + usize::from(u16::from_be_bytes([self.raw[3], self.raw[4]]));
            if self.raw.len() < len {
                break;
            }
            let record: Vec<u8> = self.raw.drain(..len).collect();
            let mut rest = record.as_slice();
            while !rest.is_empty() {
                if self.conn.read_tls(&mut rest)? == 0 {
                    break;
                }
            }
            self.conn.process_new_packets().map_err(invalid)?;
            let before = into.len();
            let mut chunk = [0u8; 16 << 10];
            let mut closed = false;
            loop {
                match self.conn.reader().read(&mut chunk) {
                    Ok(0) => {
                        closed = true;
                        break;
                    }
                    Ok(n) => into.extend_from_slice(&chunk[..n]),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(e),
                }
            }
            let plain = into.len() - before;
            opened.plain += plain;
            if closed {
                self.peer_closed = true;
            } else if plain == 0 && !self.conn.is_handshaking() {
                opened.other += len as u64;
            }
        }
        Ok(opened)
    }
}

/// Whether `bytes` start like a TLS record: a known content type and major version 3.
fn looks_like_tls(bytes: &[u8]) -> bool {
    matches!(bytes.first(), Some(20..=24)) && bytes.get(1) == Some(&3)
}

/// The client's handshake on a connected socket: writes each flight in one write, reads the
/// server's, and records both in `record` (with the kernel's data segments at its end); the
/// bytes read are added to `read_bytes`. Returns the plaintext that came with the end of the
/// handshake. The socket's timeouts bound each read and write.
pub fn client_handshake(
    stream: &mut TcpStream,
    session: &mut Session,
    record: &mut Handshake,
    read_bytes: &mut u64,
) -> io::Result<Vec<u8>> {
    let mut down = 0u64;
    let mut scratch = Vec::new();
    let mut chunk = [0u8; 16 << 10];
    // The kernel's data segments received, read before each flight of the client's: every
    // segment of the server's flights has arrived by then, and nothing after them (the TLS
    // 1.3 tickets answer the client's last flight).
    let mut segments_in = 0;
    loop {
        let out = session.pending()?;
        if !out.is_empty() {
            if down > 0 {
                record.flights.push(Flight::Down(std::mem::take(&mut down)));
            }
            segments_in = crate::sys::tcp_info(stream)
                .map(|i| i.data_segs_in)
                .unwrap_or(0);
            stream.write_all(&out)?;
            record.flights.push(Flight::Up(out.len() as u64));
        }
        if !session.is_handshaking() {
            break;
        }
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the server closed during the TLS handshake",
            ));
        }
        *read_bytes += n as u64;
        down += n as u64;
        session.open(&chunk[..n], &mut scratch)?;
    }
    let info = crate::sys::tcp_info(stream).unwrap_or_default();
    if down > 0 {
        record.flights.push(Flight::Down(down));
        segments_in = info.data_segs_in;
    }
    record.kernel_data_segments = info.data_segs_out + segments_in;
    record.resumed = session.resumed();
    // Over TLS 1.2 the server's handshake ends first, and a protocol where the server speaks
    // first (HTTP/2's preface) may have sent data with its Finished.
    Ok(scratch)
}

/// The server's handshake on an accepted socket, bounded by `timeout` in all: a client that
/// stops mid-handshake, or sends what is not TLS, is dropped (after the alert rustls makes,
/// if any). Returns the plaintext that arrived with the handshake's last flight.
pub fn server_handshake(
    stream: &mut TcpStream,
    session: &mut Session,
    timeout: Duration,
) -> io::Result<Vec<u8>> {
    let deadline = Instant::now() + timeout;
    let mut plain = Vec::new();
    let mut chunk = [0u8; 16 << 10];
    while session.is_handshaking() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "TLS handshake too slow",
            ));
        }
        stream.set_read_timeout(Some(left))?;
        let n = match stream.read(&mut chunk) {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the client closed during the TLS handshake",
                ))
            }
            Ok(n) => n,
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock) => {
                return Err(io::Error::new(io::ErrorKind::TimedOut, e))
            }
            Err(e) => return Err(e),
        };
        let opened = session.open(&chunk[..n], &mut plain);
        // Whatever rustls has to say — the next flight, or an alert — goes out now.
        let out = session.pending()?;
        if !out.is_empty() {
            stream.write_all(&out)?;
        }
        opened?;
    }
    Ok(plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which connection makes the full handshake does not depend on which thread asks first:
    /// the second in the queue, asking before the first, waits (here it gives up at once);
    /// the first in the queue goes ahead; a connection that gives no place goes ahead when
    /// it is the first to ask.
    #[test]
    fn the_first_connection_in_the_queue_makes_the_full_handshake_whoever_asks_first() {
        let started = |s: &Sessions| s.state.lock().unwrap().started;
        let sessions = Sessions::default();
        let before = Instant::now();
        sessions.claim(Duration::from_millis(50), Some(1));
        assert!(before.elapsed() >= Duration::from_millis(50), "it waited");
        assert!(
            !started(&sessions),
            "the second in the queue did not go ahead"
        );
        sessions.claim(Duration::ZERO, Some(0));
        assert!(started(&sessions), "the first in the queue did");
        let unordered = Sessions::default();
        unordered.claim(Duration::ZERO, None);
        assert!(started(&unordered));
    }
}
