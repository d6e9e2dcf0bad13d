//! The GM's desk in headless Chromium: the GM logs in, approves a held envoy and sees
//! it delivered; a wrong password and a POST without the CSRF token are refused; an
//! envoy full of markup is shown inert. Each test saves a screenshot under
//! `target/screenshots/`.

#[path = "browser_common/mod.rs"]
mod browser;
mod common;
#[path = "desk_common/mod.rs"]
mod desk;

use browser::Browser;
use desk::{Desk, PASSWORD};
use fantoccini::Locator;
use pbemd::store::messages::state;

/// Wait (at most 15 s) until the current page's source contains `needle`: a click
/// that submits a form returns before the next page has loaded.
async fn wait_for(b: &Browser, needle: &str) {
    for _ in 0..300 {
        if let Ok(src) = b.client.source().await {
            if src.contains(needle) {
                return;
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the page never showed {needle:?}");
}

async fn log_in(b: &Browser, d: &Desk, password: &str) {
    b.client
        .goto(&format!("http://{}/gm/login", d.addr))
        .await
        .unwrap();
    let field = b.client.find(Locator::Css("#password")).await.unwrap();
    field.send_keys(password).await.unwrap();
    b.client
        .find(Locator::Css("#login"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    // Either the desk (the nav's log-out link) or the refusal.
    if password == PASSWORD {
        wait_for(b, "href=\"/gm/logout\"").await;
    } else {
        wait_for(b, "id=\"login-error\"").await;
    }
}

async fn goto(b: &Browser, d: &Desk, path: &str) {
    b.client
        .goto(&format!("http://{}{path}", d.addr))
        .await
        .unwrap();
}

async fn click(b: &Browser, css: &str) {
    b.client
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .click()
        .await
        .unwrap();
}

#[tokio::test]
async fn the_gm_logs_in_approves_a_held_envoy_and_sees_it_delivered() {
    let Some(b) = Browser::start().await else {
        return;
    };
    let d = Desk::start("").await;
    let m = d
        .held_envoy("Fred och handel, hälsningar från Genogien")
        .await;
    log_in(&b, &d, PASSWORD).await;
    goto(&b, &d, "/gm/queue").await;
    let before = b.page_text().await;
    assert!(
        before.contains("Genogien → Afani") && before.contains("held"),
        "{before}"
    );
    b.screenshot("desk_queue_with_a_held_envoy").await;
    click(&b, &format!("#approve-{}", m.id)).await;
    wait_for(&b, "id=\"flash\"").await;
    let after = b.page_text().await;
    b.screenshot("desk_queue_after_approve").await;
    assert!(
        after.contains(&format!("message {} approved", m.id)) && after.contains("1 delivered"),
        "{after}"
    );
    assert!(after.contains("The GM queue is empty"), "{after}");
    goto(&b, &d, &format!("/gm/message/{}", m.id)).await;
    let page = b.page_text().await;
    b.screenshot("desk_message_delivered").await;
    b.finish().await;
    assert!(
        page.contains("routed") && page.contains("gm_approved"),
        "{page}"
    );
    assert!(page.contains("courier"), "{page}");
    assert!(d
        .outbox()
        .iter()
        .any(|s| s.to_is("afani@game.test") && s.text.contains("Fred och handel")));
}

#[tokio::test]
async fn a_wrong_password_is_refused_in_the_browser() {
    let Some(b) = Browser::start().await else {
        return;
    };
    let d = Desk::start("").await;
    log_in(&b, &d, "inte lösenordet").await;
    let text = b.page_text().await;
    b.screenshot("desk_login_wrong_password").await;
    goto(&b, &d, "/gm/queue").await;
    let url = b.client.current_url().await.unwrap();
    b.finish().await;
    assert!(text.contains("Wrong password."), "{text}");
    assert!(url.path().ends_with("/gm/login"), "still logged out: {url}");
    assert_eq!(d.audited("gm_login_failed").await.len(), 1);
}

#[tokio::test]
async fn a_post_without_the_csrf_token_is_refused_in_the_browser() {
    let Some(b) = Browser::start().await else {
        return;
    };
    let d = Desk::start("").await;
    let m = d.held_envoy("vänta på mig").await;
    log_in(&b, &d, PASSWORD).await;
    goto(&b, &d, "/gm/queue").await;
    b.client
        .execute(
            "document.querySelectorAll('input[name=csrf]').forEach(e => e.remove());",
            vec![],
        )
        .await
        .unwrap();
    click(&b, &format!("#approve-{}", m.id)).await;
    wait_for(&b, "CSRF token").await;
    let text = b.page_text().await;
    b.screenshot("desk_post_without_csrf").await;
    b.finish().await;
    assert!(text.contains("CSRF token is missing or wrong"), "{text}");
    assert_eq!(
        d.in_state(state::HELD).await.len(),
        1,
        "nothing was approved"
    );
    assert!(d.audited("gm_approved").await.is_empty());
}

const HOSTILE: &str = "<script>window.pwned=1</script><img src=x onerror=\"window.pwnedImg=1\">\
<a href=\"javascript:window.pwnedLink=1\">klicka</a>";

/// No script of the mail ran, no element of it exists, and its text is shown as text.
async fn inert(b: &Browser, page: &str) {
    let ran = b
        .client
        .execute(
            "return [typeof window.pwned, typeof window.pwnedImg, typeof window.pwnedLink];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        ran,
        serde_json::json!(["undefined", "undefined", "undefined"]),
        "{page}"
    );
    for css in ["main script", "main img", "a[href^='javascript']"] {
        let found = b.client.find_all(Locator::Css(css)).await.unwrap();
        assert!(found.is_empty(), "{page}: {css}");
    }
    let text = b.page_text().await;
    assert!(
        text.contains("<script>window.pwned=1</script>") && text.contains("javascript:window"),
        "{page}: {text}"
    );
}

#[tokio::test]
async fn an_envoy_with_script_img_onerror_and_a_javascript_link_is_shown_inert() {
    let Some(b) = Browser::start().await else {
        return;
    };
    let d = Desk::start("").await;
    let m = d.held_envoy(HOSTILE).await;
    log_in(&b, &d, PASSWORD).await;
    goto(&b, &d, "/gm/queue").await;
    b.screenshot("desk_queue_hostile_envoy").await;
    inert(&b, "queue").await;
    goto(&b, &d, &format!("/gm/message/{}", m.id)).await;
    b.screenshot("desk_message_hostile_envoy").await;
    inert(&b, "message").await;
    let links = b
        .client
        .find_all(Locator::LinkText("klicka"))
        .await
        .unwrap();
    b.finish().await;
    assert!(links.is_empty(), "the mail's link is text, not a link");
}

/// The GM answers a realm's question on the desk's message page, on a desktop and on a
/// phone's width: the answer box fits the screen (no sideways scrolling to write) and
/// the form sends the answer as `gm answer` does.
#[tokio::test]
async fn the_gm_answers_a_realms_question_on_the_message_page_at_phone_and_desktop_width() {
    let Some(b) = Browser::start().await else {
        return;
    };
    let d = Desk::start_with(None, "", "", true).await;
    d.send(
        "kaldor@game.test",
        "Kaldor till SL: Hamnar",
        "Får min flotta ligga i Ostviks hamn?",
    );
    d.tick("2026-11-24T10:00:00+01:00").await;
    let m = d
        .in_state(state::GM_QUEUE)
        .await
        .into_iter()
        .find(|m| m.subject == "Kaldor till SL: Hamnar")
        .expect("Kaldor's question in the GM queue");
    log_in(&b, &d, PASSWORD).await;
    let mut widths = Vec::new();
    for (w, name) in [
        (1280, "desk_answer_form_1280"),
        (390, "desk_answer_form_390"),
    ] {
        b.client.set_window_size(w, 900).await.unwrap();
        goto(&b, &d, &format!("/gm/message/{}", m.id)).await;
        let scroll: serde_json::Value = b
            .client
            .execute(
                "var r = document.querySelector('textarea[name=text]').getBoundingClientRect();\
                 return [Math.ceil(r.right), window.innerWidth]",
                vec![],
            )
            .await
            .unwrap();
        widths.push((w, scroll));
        b.screenshot(name).await;
    }
    b.client
        .find(Locator::Css("textarea[name=text]"))
        .await
        .unwrap()
        .send_keys("Nej, inte utan Ostviks inbjudan.")
        .await
        .unwrap();
    click(&b, &format!("#answer-{}", m.id)).await;
    wait_for(&b, "id=\"flash\"").await;
    let after = b.page_text().await;
    b.finish().await;
    for (w, scroll) in &widths {
        let (page, window) = (scroll[0].as_i64().unwrap(), scroll[1].as_i64().unwrap());
        assert!(
            page <= window,
            "at {w} px the answer box ends at {page} px in a {window} px window"
        );
    }
    assert!(after.contains("answered"), "{after}");
    assert_eq!(d.in_state(state::ANSWERED).await.len(), 1);
    assert!(
        d.outbox()
            .iter()
            .any(|s| s.to_is("kaldor@game.test") && s.text.contains("Nej, inte utan Ostviks")),
        "the answer went to Kaldor"
    );
}
