//! The GM answers a player (issue 53, §1), and the GM's commands say only what
//! happened (§3): through the real binary on a Maildir game — a realm's mail to the
//! GM, the notice the GM gets, the GM's reply to the notice going to the realm, the
//! realm's reply to that going back to the GM; `gm answer`, `gm done`, the hints of
//! `gm approve`/`gm reject`, what `gm reject` says it told, and `gm retry-mail --all`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::Sent;

fn pbemd(cfg: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .arg("--config")
        .arg(cfg)
        .args(args)
        .output()
        .expect("run pbemd")
}

/// `pbemd ARGS` with `input` on standard input.
fn pbemd_with_input(cfg: &Path, args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbemd"))
        .arg("--config")
        .arg(cfg)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run pbemd");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The one line a failed command prints.
fn refused(out: &Output) -> String {
    assert!(
        !out.status.success(),
        "expected a refusal: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err:?}");
    err
}

/// A game made with `pbemd new` (plus `extra` config) and started Tuesday 09:00.
struct G {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    cfg: PathBuf,
    n: std::cell::Cell<u32>,
}

impl G {
    fn new(extra: &str) -> G {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("g");
        ok(&Command::new(env!("CARGO_BIN_EXE_pbemd"))
            .args(["new", dir.to_str().unwrap()])
            .output()
            .unwrap());
        let cfg = dir.join("pbemd.yaml");
        let text = std::fs::read_to_string(&cfg).unwrap() + extra;
        std::fs::write(&cfg, text).unwrap();
        ok(&pbemd(
            &cfg,
            &["init", "--quiet", "--now", "2026-11-24T09:00:00+01:00"],
        ));
        G {
            _tmp: tmp,
            dir,
            cfg,
            n: Default::default(),
        }
    }

    fn run(&self, args: &[&str]) -> Output {
        pbemd(&self.cfg, args)
    }

    fn drop_raw(&self, raw: &[u8]) {
        let n = self.n.get() + 1;
        self.n.set(n);
        let path = self.dir.join("inbox/new").join(format!("{n}.mail"));
        std::fs::write(path, raw).unwrap();
    }

    /// A player's (or anyone's) plain mail with this Message-ID.
    fn send(&self, from: &str, subject: &str, body: &str, id: &str) {
        self.drop_raw(&common::mail(from, subject, body, id));
    }

    /// The GM's reply to `parent` (a sent mail), as a mail program writes it: the
    /// parent named in In-Reply-To and References, the answer on top, the parent
    /// quoted below.
    fn gm_replies(&self, parent: &Sent, answer: &str) {
        let quoted: String = parent.text.lines().map(|l| format!("> {l}\r\n")).collect();
        let raw = format!(
            "From: Spelledaren <gm@game.test>\r\nTo: sl@game.test\r\nSubject: Re: {subject}\r\n\
             Message-ID: <gm{n}@gm.test>\r\nIn-Reply-To: {mid}\r\nReferences: {mid}\r\n\
             Date: Tue, 24 Nov 2026 12:00:00 +0100\r\nMIME-Version: 1.0\r\n\
             Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n\
             {answer}\r\n\r\nDen tis 24 nov. 2026 kl 10:00 skrev Spelet <sl@game.test>:\r\n{quoted}",
            subject = parent.subject,
            n = self.n.get(),
            mid = parent.message_id_bracketed(),
            answer = answer.replace('\n', "\r\n"),
        );
        self.drop_raw(raw.as_bytes());
    }

    fn tick(&self, now: &str) -> String {
        ok(&self.run(&["tick", "--now", now]))
    }

    /// Every mail in the outbox Maildir, in the order written.
    fn outbox(&self) -> Vec<Sent> {
        let dir = self.dir.join("outbox/new");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort_by_key(|p| std::fs::metadata(p).unwrap().modified().unwrap());
        files
            .iter()
            .map(|p| Sent::parse(&std::fs::read(p).unwrap()))
            .collect()
    }

    /// The mails to `addr` whose subject contains `needle`.
    fn mails_to(&self, addr: &str, needle: &str) -> Vec<Sent> {
        self.outbox()
            .into_iter()
            .filter(|m| m.to_is(addr) && m.subject.contains(needle))
            .collect()
    }

    /// The id of the queue's line that contains every one of `needles`.
    fn queued_id(&self, needles: &[&str]) -> String {
        let q = ok(&self.run(&["gm", "queue"]));
        let line = q
            .lines()
            .find(|l| needles.iter().all(|n| l.contains(n)))
            .unwrap_or_else(|| panic!("no line with {needles:?} in\n{q}"));
        line.split_whitespace().next().unwrap().to_string()
    }
}

trait Bracketed {
    fn message_id_bracketed(&self) -> String;
}

impl Bracketed for Sent {
    fn message_id_bracketed(&self) -> String {
        format!("<{}>", self.message_id.trim_matches(['<', '>']))
    }
}

/// The header `name` of a sent mail, unfolded.
fn header(m: &Sent, name: &str) -> Option<String> {
    let head = m
        .raw
        .split("\r\n\r\n")
        .next()
        .unwrap()
        .replace("\r\n ", " ");
    head.lines()
        .find(|l| {
            l.to_lowercase()
                .starts_with(&format!("{}:", name.to_lowercase()))
        })
        .map(|l| l[name.len() + 1..].trim().to_string())
}

#[test]
fn a_reply_to_the_gm_notice_reaches_the_realm_and_the_realms_reply_reaches_the_gm_again() {
    let g = G::new("");
    g.send(
        "kaldor@game.test",
        "Kaldor till SL: Fråga om muren",
        "Får vi bygga en mur vid Bergsby?",
        "q1@players.test",
    );
    g.tick("2026-11-24T10:00:00+01:00");

    // The notice: who wrote, from where, how to answer, and Reply-To the game.
    let notices = g.mails_to("gm@game.test", "SL-post från Kaldor");
    assert_eq!(notices.len(), 1, "{:?}", g.outbox());
    let notice = &notices[0];
    assert_eq!(
        header(notice, "Reply-To").as_deref(),
        Some("sl@game.test"),
        "{}",
        notice.raw
    );
    for said in [
        "Reply to this mail to answer Kaldor",
        "Svara på det här brevet för att svara Kaldor",
        "Kaldor <kaldor@game.test>",
        "Kaldor till SL: Fråga om muren",
        "Får vi bygga en mur vid Bergsby?",
        "pbemd gm answer",
    ] {
        assert!(notice.text.contains(said), "{said:?} in {}", notice.text);
    }
    let id = g.queued_id(&["to_gm", "Kaldor"]);

    // The GM replies to the notice from the mail program.
    g.gm_replies(notice, "Ja, men bara på er egen mark.\n\n-- \nSpelledaren");
    g.tick("2026-11-24T12:00:00+01:00");
    let answers = g.mails_to("kaldor@game.test", "Kaldor till SL");
    let answer = answers
        .iter()
        .find(|m| m.text.contains("SVAR FRÅN SL"))
        .unwrap_or_else(|| panic!("no answer to Kaldor in {:?}", g.outbox()));
    assert_eq!(answer.subject, "Re: Kaldor till SL: Fråga om muren");
    assert!(
        answer.text.contains("Ja, men bara på er egen mark.")
            && answer.text.contains("Spelledaren"),
        "the GM's words as written: {}",
        answer.text
    );
    assert!(
        !answer.text.contains("> ") && !answer.text.contains("skrev Spelet"),
        "the quoted notice is left out: {}",
        answer.text
    );
    assert!(
        !answer.raw.contains("gm@game.test") && !answer.raw.contains(&notice.message_id),
        "neither the GM's address nor the notice reaches the realm: {}",
        answer.raw
    );
    assert!(
        answer.raw.contains("From: ") && header(answer, "From").unwrap().contains("sl@game.test")
    );
    assert_eq!(answer.in_reply_to.as_deref(), Some("q1@players.test"));

    // The item is answered: out of the queue, listed with --all, audited.
    let q = ok(&g.run(&["gm", "queue"]));
    assert!(
        !q.contains("to_gm") && !q.contains("from_gm"),
        "an answered item leaves the queue: {q}"
    );
    let all = ok(&g.run(&["gm", "queue", "--all"]));
    assert!(
        all.lines()
            .any(|l| l.trim_start().starts_with(&format!("{id} ")) && l.contains("answered")),
        "{all}"
    );
    let log = ok(&g.run(&["gm", "log"]));
    assert!(
        log.contains("gm_answered") && log.contains("\"via\":\"mail\""),
        "{log}"
    );

    // Kaldor answers the GM's answer with the mail program's Reply: GM mail again.
    g.send(
        "kaldor@game.test",
        &format!("Re: {}", answer.subject),
        "Tack! Och vid Östport?",
        "q2@players.test",
    );
    g.tick("2026-11-24T13:00:00+01:00");
    let notices = g.mails_to("gm@game.test", "SL-post från Kaldor");
    assert_eq!(notices.len(), 2, "a second notice: {:?}", g.outbox());
    let second = notices
        .iter()
        .find(|n| n.text.contains("Tack! Och vid Östport?"))
        .expect("the notice of Kaldor's reply");
    let id2 = g.queued_id(&["to_gm", "Kaldor"]);
    assert_ne!(id, id2);
    g.gm_replies(second, "Nej, inte där.");
    g.tick("2026-11-24T14:00:00+01:00");
    let answers: Vec<Sent> = g
        .mails_to("kaldor@game.test", "Kaldor till SL")
        .into_iter()
        .filter(|m| m.text.contains("SVAR FRÅN SL"))
        .collect();
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert!(answers.iter().any(|a| a.text.contains("Nej, inte där.")
        && a.in_reply_to.as_deref() == Some("q2@players.test")));
    let q = ok(&g.run(&["gm", "queue"]));
    assert!(!q.contains("to_gm"), "{q}");
}

#[test]
fn an_english_realm_gets_the_answer_in_english_and_its_reply_subject_is_gm_mail() {
    let g = G::new("");
    g.send(
        "afani@game.test",
        "Afani to GM: trade rules",
        "May we trade with Ostvik by sea?",
        "a1@players.test",
    );
    g.tick("2026-11-24T10:00:00+01:00");
    let notice = g.mails_to("gm@game.test", "GM mail from Afani").remove(0);
    assert!(notice.text.contains("Reply to this mail to answer Afani"));
    g.gm_replies(&notice, "Yes, if you hold a harbour.");
    g.tick("2026-11-24T11:00:00+01:00");
    let answer = g
        .mails_to("afani@game.test", "Afani to GM")
        .into_iter()
        .find(|m| !m.text.contains("has arrived"))
        .expect("the answer");
    assert_eq!(answer.subject, "Re: Afani to GM: trade rules");
    assert!(
        answer.text.contains("ANSWER FROM THE GM")
            && answer.text.contains("Yes, if you hold a harbour."),
        "{}",
        answer.text
    );
}

#[test]
fn a_gm_mail_that_answers_no_notice_or_says_nothing_of_its_own_stays_in_the_gm_queue() {
    let g = G::new("");
    g.send(
        "kaldor@game.test",
        "Kaldor till SL: Fråga",
        "Hej?",
        "q1@players.test",
    );
    g.tick("2026-11-24T10:00:00+01:00");
    let notice = g.mails_to("gm@game.test", "SL-post från Kaldor").remove(0);
    // A mail from the GM's address naming something else, and one naming the notice
    // by a guessed Message-ID: neither goes anywhere.
    g.drop_raw(
        b"From: gm@game.test\r\nTo: sl@game.test\r\nSubject: Re: hej\r\nMessage-ID: <x1@gm.test>\r\n\
In-Reply-To: <q1@players.test>\r\n\r\nTill alla: spelet pausar.\r\n",
    );
    g.tick("2026-11-24T11:00:00+01:00");
    // The GM's reply with nothing but the quoted notice.
    g.gm_replies(&notice, "");
    g.tick("2026-11-24T12:00:00+01:00");
    let to_kaldor: Vec<Sent> = g
        .outbox()
        .into_iter()
        .filter(|m| m.to_is("kaldor@game.test") && !m.text.contains("har kommit fram"))
        .collect();
    assert!(to_kaldor.is_empty(), "{to_kaldor:?}");
    let q = ok(&g.run(&["gm", "queue"]));
    assert_eq!(q.matches("from_gm").count(), 2, "{q}");
    assert!(q.contains("to_gm"), "still waiting: {q}");
    let id = g.queued_id(&["from_gm", "Re: SL-post"]);
    let show = ok(&g.run(&["gm", "show", &id]));
    assert!(show.contains("no text of its own"), "{show}");
}

#[test]
fn gm_answer_and_gm_done_from_the_command_line_and_approve_or_reject_say_which_fits() {
    let g = G::new("");
    g.send(
        "kaldor@game.test",
        "Kaldor till SL: Fråga",
        "Hur många spioner får vi ha?",
        "q1@players.test",
    );
    g.send(
        "mirandel@game.test",
        "Mirandel till SL: Hej",
        "Bara en hälsning.",
        "q2@players.test",
    );
    g.send("who@else.test", "Hej", "vem", "u1@x");
    g.tick("2026-11-24T10:00:00+01:00");
    let kaldor = g.queued_id(&["to_gm", "Kaldor"]);
    let mirandel = g.queued_id(&["to_gm", "Mirandel"]);
    let unknown = g.queued_id(&["unknown_sender"]);

    for verb in ["approve", "reject"] {
        let mut args = vec!["gm", verb, kaldor.as_str()];
        if verb == "reject" {
            args.extend(["--reason", "nej"]);
        }
        let err = refused(&g.run(&args));
        assert!(
            err.contains(&format!("pbemd gm answer {kaldor}"))
                && err.contains(&format!("pbemd gm done {kaldor}")),
            "{verb}: {err}"
        );
    }
    let err = refused(&g.run(&["gm", "approve", &unknown]));
    assert!(err.contains(&format!("pbemd gm done {unknown}")), "{err}");

    // From standard input, then from a file; an empty answer is refused.
    let err = refused(&pbemd_with_input(
        &g.cfg,
        &["gm", "answer", &kaldor],
        "  \n",
    ));
    assert!(err.contains("empty"), "{err}");
    let said = ok(&pbemd_with_input(
        &g.cfg,
        &["gm", "answer", &kaldor],
        "Tre spioner.\n",
    ));
    assert!(
        said.contains(&format!("message {kaldor} answered"))
            && said.contains("went to Kaldor (kaldor@game.test)"),
        "{said}"
    );
    let answers = |g: &G| -> Vec<Sent> {
        g.mails_to("kaldor@game.test", "Re: Kaldor till SL: Fråga")
            .into_iter()
            .filter(|m| m.text.contains("SVAR FRÅN SL"))
            .collect()
    };
    let answer = answers(&g).remove(0);
    assert!(answer.text.contains("Tre spioner."), "{}", answer.text);
    let file = g.dir.join("svar.txt");
    std::fs::write(&file, "Och en till i krig.\n").unwrap();
    ok(&g.run(&["gm", "answer", &kaldor, "--file", file.to_str().unwrap()]));
    assert_eq!(answers(&g).len(), 2, "a second answer adds to the first");
    let err = refused(&pbemd_with_input(&g.cfg, &["gm", "answer", &unknown], "x"));
    assert!(err.contains("not a realm's mail to the GM"), "{err}");

    // Done: out of the queue, no mail, audited.
    let before = g.outbox().len();
    let said = ok(&g.run(&["gm", "done", &mirandel]));
    assert!(said.contains("closed without any mail"), "{said}");
    ok(&g.run(&["gm", "done", &unknown]));
    assert_eq!(g.outbox().len(), before, "done mails no one");
    let err = refused(&g.run(&["gm", "done", &mirandel]));
    assert!(err.contains("is done"), "{err}");
    let q = ok(&g.run(&["gm", "queue"]));
    assert!(q.contains("the GM queue is empty"), "{q}");
    let log = ok(&g.run(&["gm", "log"]));
    assert_eq!(log.matches("gm_done").count(), 2, "{log}");
    assert_eq!(log.matches("gm_answered").count(), 2, "{log}");
    assert!(log.contains("\"via\":\"command\""), "{log}");
}

#[test]
fn gm_reject_says_the_sender_was_told_only_when_a_refusal_was_mailed() {
    let g = G::new("courier: {review: all}\n");
    g.send(
        "genogien@game.test",
        "Genogien skickar ett sändebud till Afani",
        "Hot!",
        "e1@players.test",
    );
    g.send("who@else.test", "Hej", "vem", "u1@x");
    g.tick("2026-11-24T10:00:00+01:00");
    let held = g.queued_id(&["held", "Genogien"]);
    let unknown = g.queued_id(&["unknown_sender"]);
    let said = ok(&g.run(&["gm", "reject", &unknown, "--reason", "okänd"]));
    assert!(
        said.contains("no mail went to anyone")
            && said.contains("who@else.test is no realm's")
            && !said.contains("told why"),
        "{said}"
    );
    let said = ok(&g.run(&["gm", "reject", &held, "--reason", "Inga hot."]));
    assert!(
        said.contains("the sender was told why") && said.contains("genogien@game.test"),
        "{said}"
    );
    let refusal = g.mails_to("genogien@game.test", "Re: Genogien skickar");
    assert!(refusal.iter().any(|m| m.text.contains("Inga hot.")));
}

#[tokio::test]
async fn gm_retry_mail_all_sends_every_undelivered_mail_again_and_says_what_still_fails() {
    let g = common::Game::start("2026-11-24T09:00:00+01:00").await;
    let cfg = g.game_dir().join("pbemd.yaml");
    let far = pbemd::clock::to_ms(common::at("2027-06-01T09:00:00+01:00"));
    let mut ids = Vec::new();
    {
        let mut c = g.app.store.conn().await.unwrap();
        for (n, to) in ["afani@game.test", "kaldor@game.test", "ostvik@game.test"]
            .iter()
            .enumerate()
        {
            let mid = format!("<all{n}@game.test>");
            let raw = format!(
                "From: sl@game.test\r\nTo: {to}\r\nSubject: Prov {n}\r\nMessage-ID: {mid}\r\n\r\nbrev {n}\r\n"
            );
            let to = vec![to.to_string()];
            let key = format!("all-test:{n}");
            let row = pbemd::store::outbox::NewOutgoing {
                dedup_key: &key,
                message_id: &mid,
                kind: "refusal",
                to_addrs: &to,
                from_addr: "sl@game.test",
                subject: "Prov",
                raw: raw.as_bytes(),
                kept: None,
                at: 1,
            };
            ids.push(pbemd::store::outbox::enqueue(&mut c, &row).await.unwrap());
        }
        use pbemd::store::outbox::mark_attempt_failed;
        mark_attempt_failed(&mut c, ids[0], "535 auth failed", far, true)
            .await
            .unwrap();
        mark_attempt_failed(&mut c, ids[1], "421 try later", far, false)
            .await
            .unwrap();
        mark_attempt_failed(&mut c, ids[2], "535 auth failed", far, true)
            .await
            .unwrap();
    }
    // Neither an id nor --all: refused, naming both.
    let out = pbemd(&cfg, &["gm", "retry-mail"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--all"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = ok(&pbemd(&cfg, &["gm", "retry-mail", "--all"]));
    assert_eq!(said.trim(), "3 mails sent again, 0 still failing", "{said}");
    let mut c = g.app.store.conn().await.unwrap();
    for id in &ids {
        let row = pbemd::store::outbox::get(&mut c, *id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(row.state, "sent", "{row:?}");
    }
    let audited = pbemd::store::events::of_kind(&mut c, "gm_mail_retried")
        .await
        .unwrap();
    assert_eq!(audited.len(), 3);
    drop(c);
    let said = ok(&pbemd(&cfg, &["gm", "retry-mail", "--all"]));
    assert_eq!(said.trim(), "no outgoing mail was waiting to be sent again");
}

#[test]
fn retry_mail_all_reports_a_mail_that_fails_again_with_its_error() {
    let summary = pbemd::app::gm::AllRetried {
        sent: vec![row(1, "sent", None)],
        failing: vec![row(2, "failed", Some("535 5.7.8 bad password"))],
        left: vec![],
    }
    .summary();
    assert_eq!(
        summary,
        "1 mail sent again, 1 still failing: outbox 2 to x@game.test (535 5.7.8 bad password; given up)"
    );
}

fn row(id: i64, state: &str, error: Option<&str>) -> pbemd::store::outbox::OutRow {
    pbemd::store::outbox::OutRow {
        id,
        kind: "refusal".into(),
        to_addrs: "x@game.test".into(),
        subject: "s".into(),
        state: state.into(),
        attempts: 1,
        last_error: error.map(str::to_string),
        created_at: 0,
    }
}
