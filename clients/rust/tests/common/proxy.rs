//! A TCP proxy in front of one server that can lose a reply: armed with a pattern, it
//! forwards the first request bytes holding the pattern to the server, waits for the server
//! to run them, then closes the client's connection without passing the reply back. That is
//! a reply lost after the command ran: the case a once-only command must report as unknown.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

pub struct Proxy {
    pub port: u16,
    armed: Arc<Mutex<Option<Vec<u8>>>>,
    cuts: Arc<AtomicUsize>,
}

impl Proxy {
    /// A proxy on a free loopback port to the server at `target`.
    pub fn start(target: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let armed: Arc<Mutex<Option<Vec<u8>>>> = Arc::default();
        let cuts = Arc::new(AtomicUsize::new(0));
        let (a, c) = (armed.clone(), cuts.clone());
        thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let Ok(server) = TcpStream::connect(("127.0.0.1", target)) else {
                    continue;
                };
                relay(client, server, a.clone(), c.clone());
            }
        });
        Proxy { port, armed, cuts }
    }

    /// The next request holding `pattern` runs on the server and its reply is lost.
    pub fn lose_reply_to(&self, pattern: &[u8]) {
        *self.armed.lock().unwrap() = Some(pattern.to_vec());
    }

    /// How many replies were lost so far.
    pub fn cuts(&self) -> usize {
        self.cuts.load(Ordering::SeqCst)
    }
}

fn relay(
    client: TcpStream,
    server: TcpStream,
    armed: Arc<Mutex<Option<Vec<u8>>>>,
    cuts: Arc<AtomicUsize>,
) {
    let cut = Arc::new(AtomicBool::new(false));
    let (mut c_in, mut s_out) = (client.try_clone().unwrap(), server.try_clone().unwrap());
    let cut_up = cut.clone();
    let (client_up, server_up) = (client.try_clone().unwrap(), server.try_clone().unwrap());
    thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = match c_in.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let chunk = &buf[..n];
            let hit = {
                let mut a = armed.lock().unwrap();
                let hit = a
                    .as_ref()
                    .is_some_and(|p| chunk.windows(p.len()).any(|w| w == p.as_slice()));
                if hit {
                    *a = None;
                }
                hit
            };
            if hit {
                // No reply passes from here on; the request reaches the server and runs.
                cuts.fetch_add(1, Ordering::SeqCst);
                cut_up.store(true, Ordering::SeqCst);
                let _ = s_out.write_all(chunk);
                thread::sleep(Duration::from_millis(300));
                let _ = client_up.shutdown(Shutdown::Both);
                let _ = server_up.shutdown(Shutdown::Both);
                break;
            }
            if s_out.write_all(chunk).is_err() {
                break;
            }
        }
        let _ = server_up.shutdown(Shutdown::Both);
    });
    let (mut s_in, mut c_out) = (server, client);
    thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = match s_in.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if cut.load(Ordering::SeqCst) || c_out.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = c_out.shutdown(Shutdown::Both);
    });
}
