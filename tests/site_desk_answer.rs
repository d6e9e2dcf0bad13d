//! The desk's Answer and Done on a realm's mail to the GM (issue 53, §1): the same app
//! code as `pbemd gm answer` and `pbemd gm done`, POST forms with the session's CSRF
//! token.

mod common;
#[path = "desk_common/mod.rs"]
mod desk;

use desk::{form, http, login, queue_with_flash, Desk};
use pbemd::store::messages::state;

/// A realm's mail to the GM, handled; its message.
async fn to_gm(d: &Desk, from: &str, subject: &str, body: &str) -> pbemd::store::messages::Message {
    d.send(from, subject, body);
    d.tick("2026-11-24T10:00:00+01:00").await;
    d.in_state(state::GM_QUEUE)
        .await
        .into_iter()
        .find(|m| m.subject == subject)
        .unwrap_or_else(|| panic!("{subject} in the GM queue"))
}

/// POST `action` on message `id` with the session's token and `extra` fields; the
/// one-time message it left.
async fn act(d: &Desk, gm: &str, id: i64, action: &str, extra: &[(&str, &str)]) -> String {
    let page = http(d.addr, "GET", &format!("/gm/message/{id}"), gm, None, &[]).await;
    let csrf = page.csrf();
    let mut pairs = vec![("csrf", csrf.as_str()), ("back", "message")];
    pairs.extend_from_slice(extra);
    let path = format!("/gm/queue/{id}/{action}");
    let r = http(d.addr, "POST", &path, gm, Some(&form(&pairs)), &[]).await;
    assert_eq!(r.status, 303, "{action}: {}", r.body);
    assert_eq!(
        r.header("location"),
        Some(format!("/gm/message/{id}").as_str())
    );
    let page = queue_with_flash(d.addr, gm, &r).await;
    let at = page.body.find("id=\"flash\">").expect("a flash message") + 11;
    page.body[at..].split('<').next().unwrap().to_string()
}

#[tokio::test]
async fn answer_and_done_on_the_desk_do_what_gm_answer_and_gm_done_do() {
    let d = Desk::start_with(None, "", "", true).await;
    let q = to_gm(&d, "kaldor@game.test", "Kaldor till SL: Muren", "Får vi?").await;
    let m = to_gm(&d, "mirandel@game.test", "Mirandel till SL: Hej", "Hej!").await;
    let gm = login(d.addr).await;

    // The queue offers Answer and Done, not Reject; the message page the answer form.
    let queue = http(d.addr, "GET", "/gm/queue", &gm, None, &[]).await;
    assert!(
        queue
            .body
            .contains(&format!("href=\"/gm/message/{}#answer\">Answer</a>", q.id))
            && queue.body.contains(&format!("id=\"done-{}\"", q.id))
            && !queue.body.contains(&format!("id=\"reject-{}\"", q.id)),
        "{}",
        queue.body
    );
    let page = http(
        d.addr,
        "GET",
        &format!("/gm/message/{}", q.id),
        &gm,
        None,
        &[],
    )
    .await;
    assert!(
        page.body.contains("id=\"answer\"")
            && page
                .body
                .contains(&format!("action=\"/gm/queue/{}/answer\"", q.id))
            && page.body.contains(&format!("id=\"answer-{}\"", q.id)),
        "{}",
        page.body
    );

    // Without the session's token nothing is sent.
    let path = format!("/gm/queue/{}/answer", q.id);
    let body = form(&[("csrf", "forged"), ("text", "Ja.")]);
    let r = http(d.addr, "POST", &path, &gm, Some(&body), &[]).await;
    assert_eq!(r.status, 403);
    assert!(d.outbox().iter().all(|s| !s.text.contains("SVAR FRÅN SL")));

    let said = act(
        &d,
        &gm,
        q.id,
        "answer",
        &[("text", "Ja, <b>bygg</b>.\r\nSL")],
    )
    .await;
    assert!(
        said.contains(&format!("message {} answered", q.id)) && said.contains("kaldor@game.test"),
        "{said}"
    );
    let answer = d
        .outbox()
        .into_iter()
        .find(|s| s.to_is("kaldor@game.test") && s.text.contains("SVAR FRÅN SL"))
        .expect("the answer");
    assert!(
        answer
            .text
            .replace("\r\n", "\n")
            .contains("Ja, <b>bygg</b>.\nSL"),
        "{}",
        answer.text
    );
    assert_eq!(answer.subject, "Re: Kaldor till SL: Muren");
    let answered = d.in_state(state::ANSWERED).await;
    assert_eq!(answered.iter().map(|m| m.id).collect::<Vec<_>>(), [q.id]);
    let audited = d.audited("gm_answered").await;
    assert!(
        audited[0].detail.contains("\"via\":\"desk\""),
        "{audited:?}"
    );

    let before = d.outbox().len();
    let said = act(&d, &gm, m.id, "done", &[]).await;
    assert!(said.contains("closed without any mail"), "{said}");
    assert_eq!(d.outbox().len(), before);
    assert_eq!(d.in_state(state::DONE).await.len(), 1);
    assert_eq!(d.audited("gm_done").await.len(), 1);
    let queue = http(d.addr, "GET", "/gm/queue", &gm, None, &[]).await;
    assert!(queue.body.contains("queue-empty"), "{}", queue.body);
}
