//! The recording the simulator replays does not depend on how the loopback run was scheduled:
//! when a connection that resumes could send its ClientHello. (Which of several simultaneous
//! connections makes the full handshake is the client's to keep fixed: `transport::tls`.)

use super::meter::{Flight, Framing, Handshake};
use super::recording::{build, ConnScript, Opened, RecordedVisit, Script, ServerRule};
use super::transport::tls::TLS13_TICKETS;
use crate::sim::simulate::Trigger;

fn full() -> Handshake {
    Handshake {
        flights: vec![Flight::Up(301), Flight::Down(866), Flight::Up(80)],
        tickets: 460,
        resumed: false,
        ..Handshake::default()
    }
}

fn resumed() -> Handshake {
    Handshake {
        flights: vec![Flight::Up(520), Flight::Down(203), Flight::Up(80)],
        tickets: 460,
        resumed: true,
        ..Handshake::default()
    }
}

/// HTTP/1.0's connection for `target`, the `seq`-th queued, opened at the visit's start.
fn http10(seq: u64, target: &str, tls: Handshake) -> Script {
    let mut c = ConnScript::default();
    c.seq = seq;
    c.opened = Opened::Start;
    c.pooled = true;
    c.tls = Some(tls);
    c.request(target, 180);
    c.wrote(180, 202, 0);
    c.response(1_000 + seq);
    Script::Http1(c)
}

fn rule() -> ServerRule {
    ServerRule {
        buffer_bytes: 65_536,
        wait_ns: 50_000_000,
        framing: Framing::tls(22),
        connections: 4,
    }
}

/// The trigger of the client's first message (its ClientHello) on connection `conn`; every
/// connection opens at the start.
fn hello(visit: &RecordedVisit, conn: usize) -> Trigger {
    assert_eq!(visit.exchange.connections[conn].open, Trigger::Start);
    visit.exchange.connections[conn].messages[0].trigger
}

/// The connection's server message carrying `bytes` (its tickets).
fn tickets_arrived(visit: &RecordedVisit, conn: usize, bytes: u64) -> Trigger {
    let message = visit.exchange.connections[conn]
        .messages
        .iter()
        .position(|m| m.bytes == bytes)
        .expect("the tickets are a message");
    Trigger::Received {
        conn,
        message,
        bytes,
    }
}

#[test]
fn a_resumed_connection_says_hello_once_a_ticket_has_arrived_two_per_ticket_write() {
    assert_eq!(
        TLS13_TICKETS, 2,
        "this test is written for rustls's two tickets"
    );
    let visit = build(
        vec![
            http10(0, "/", full()),
            http10(1, "/a.gif", resumed()),
            http10(2, "/b.gif", resumed()),
            http10(3, "/c.gif", resumed()),
        ],
        &rule(),
    );
    assert_eq!(
        hello(&visit, 0),
        Trigger::Established { conn: 0 },
        "the full handshake waits for nothing but its connection"
    );
    let first_tickets = tickets_arrived(&visit, 0, 460);
    assert_eq!(hello(&visit, 1), first_tickets);
    assert_eq!(hello(&visit, 2), first_tickets);
    assert_eq!(
        hello(&visit, 3),
        tickets_arrived(&visit, 1, 460),
        "the page's two tickets are taken: the third waits for the next connection's"
    );
}

#[test]
fn a_tls12_session_resumes_every_later_connection_once_the_full_handshake_is_done() {
    let tls12 = |resumed| Handshake {
        flights: if resumed {
            vec![Flight::Up(250), Flight::Down(150), Flight::Up(60)]
        } else {
            vec![
                Flight::Up(250),
                Flight::Down(900),
                Flight::Up(150),
                Flight::Down(60),
            ]
        },
        tickets: 0,
        resumed,
        ..Handshake::default()
    };
    let visit = build(
        (0..4)
            .map(|i| http10(i, &format!("/{i}"), tls12(i > 0)))
            .collect(),
        &rule(),
    );
    let done = tickets_arrived(&visit, 0, 60);
    for conn in 1..4 {
        assert_eq!(hello(&visit, conn), done, "connection {conn}");
    }
}
