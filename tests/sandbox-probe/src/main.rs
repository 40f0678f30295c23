//! A test-only wasm32-wasip2 command that probes the authority it was given.
//!
//! The host runs it with exactly the WASI context it gives the real
//! components (plus a stdout pipe to read the answer). The probe tries to
//! read the environment, the arguments, the file system and the network, and
//! prints a bit mask of what worked: 0 means it got nothing. (Exit codes
//! cannot carry the mask: WASI p2's `exit` only says success or failure.)

use std::net::{TcpStream, UdpSocket};

/// An environment variable was visible.
const ENV_VISIBLE: i32 = 1;
/// A file-system root or the current directory could be listed or read.
const FILES_VISIBLE: i32 = 2;
/// A TCP connection to loopback could be made.
const TCP_ALLOWED: i32 = 4;
/// A UDP socket could be bound.
const UDP_ALLOWED: i32 = 8;
/// A host name could be resolved.
const DNS_ALLOWED: i32 = 16;
/// Command-line arguments beyond the program name were visible.
const ARGS_VISIBLE: i32 = 32;
/// A file could be created.
const FILES_WRITABLE: i32 = 64;

fn main() {
    let mut found = 0;
    if std::env::vars_os().next().is_some() {
        found |= ENV_VISIBLE;
    }
    if std::env::args_os().nth(1).is_some() {
        found |= ARGS_VISIBLE;
    }
    let readable = ["/", ".", "/etc", "/tmp"]
        .iter()
        .any(|dir| std::fs::read_dir(dir).is_ok())
        || std::fs::read("/etc/hostname").is_ok();
    if readable {
        found |= FILES_VISIBLE;
    }
    if std::fs::write("probe-was-here", b"x").is_ok() || std::fs::write("/tmp/probe", b"x").is_ok()
    {
        found |= FILES_WRITABLE;
    }
    // Whether anything listens there does not matter: a refused connection
    // still proves the network was reachable. Only a denial means sandboxed.
    if reached(TcpStream::connect("127.0.0.1:9").map(drop)) {
        found |= TCP_ALLOWED;
    }
    if reached(UdpSocket::bind("127.0.0.1:0").map(drop)) {
        found |= UDP_ALLOWED;
    }
    if std::net::ToSocketAddrs::to_socket_addrs(&("localhost", 80)).is_ok() {
        found |= DNS_ALLOWED;
    }
    println!("{found}");
}

/// True unless the attempt was refused by the sandbox itself.
fn reached(attempt: std::io::Result<()>) -> bool {
    match attempt {
        Ok(()) => true,
        Err(error) => error.kind() != std::io::ErrorKind::PermissionDenied,
    }
}
