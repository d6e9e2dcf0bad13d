//! Text rendering: a handlebars registry in strict mode (every variable
//! must exist) with the templates embedded at compile time, and the Monday
//! result form. View models live in `view`; templates only print them.
//! Reads no files at run time; sends nothing.

pub mod battle;
mod direct;
pub mod map;
pub mod season_calendar;
pub mod season_realms;
pub mod season_report;
pub mod sender_auth;
pub mod view;
pub mod weekend;

use handlebars::{
    Context, Handlebars, Helper, HelperDef, HelperResult, Output, RenderContext, Renderable,
    StringOutput,
};

use crate::game::text::{wrap_hanging, WIDTH};
use crate::game::{GameState, Lang};
pub use view::{FormContext, FormView};

/// The embedded templates: `(name, language, source)`. The main crate may
/// register more with `Renderer::register`.
pub const TEMPLATES: &[(&str, Lang, &str)] = &[
    (
        "result_form",
        Lang::Sv,
        include_str!("../../templates/sv/result_form.hbs"),
    ),
    (
        "result_form",
        Lang::En,
        include_str!("../../templates/en/result_form.hbs"),
    ),
    (
        "envoy_delivery",
        Lang::Sv,
        include_str!("../../templates/sv/envoy_delivery.hbs"),
    ),
    (
        "envoy_delivery",
        Lang::En,
        include_str!("../../templates/en/envoy_delivery.hbs"),
    ),
    (
        "refusal",
        Lang::Sv,
        include_str!("../../templates/sv/refusal.hbs"),
    ),
    (
        "refusal",
        Lang::En,
        include_str!("../../templates/en/refusal.hbs"),
    ),
    (
        "form_receipt",
        Lang::Sv,
        include_str!("../../templates/sv/form_receipt.hbs"),
    ),
    (
        "form_receipt",
        Lang::En,
        include_str!("../../templates/en/form_receipt.hbs"),
    ),
    (
        "reminder",
        Lang::Sv,
        include_str!("../../templates/sv/reminder.hbs"),
    ),
    (
        "reminder",
        Lang::En,
        include_str!("../../templates/en/reminder.hbs"),
    ),
    (
        "missing_forms",
        Lang::Sv,
        include_str!("../../templates/sv/missing_forms.hbs"),
    ),
    (
        "missing_forms",
        Lang::En,
        include_str!("../../templates/en/missing_forms.hbs"),
    ),
    (
        "merchant_delivery",
        Lang::Sv,
        include_str!("../../templates/sv/merchant_delivery.hbs"),
    ),
    (
        "merchant_delivery",
        Lang::En,
        include_str!("../../templates/en/merchant_delivery.hbs"),
    ),
    (
        "courier_receipt",
        Lang::Sv,
        include_str!("../../templates/sv/courier_receipt.hbs"),
    ),
    (
        "courier_receipt",
        Lang::En,
        include_str!("../../templates/en/courier_receipt.hbs"),
    ),
    (
        "stolen_envoy",
        Lang::Sv,
        include_str!("../../templates/sv/stolen_envoy.hbs"),
    ),
    (
        "stolen_envoy",
        Lang::En,
        include_str!("../../templates/en/stolen_envoy.hbs"),
    ),
    (
        "returned_envoy",
        Lang::Sv,
        include_str!("../../templates/sv/returned_envoy.hbs"),
    ),
    (
        "returned_envoy",
        Lang::En,
        include_str!("../../templates/en/returned_envoy.hbs"),
    ),
    (
        "spy_report",
        Lang::Sv,
        include_str!("../../templates/sv/spy_report.hbs"),
    ),
    (
        "spy_report",
        Lang::En,
        include_str!("../../templates/en/spy_report.hbs"),
    ),
    (
        "reveal_result",
        Lang::Sv,
        include_str!("../../templates/sv/reveal_result.hbs"),
    ),
    (
        "reveal_result",
        Lang::En,
        include_str!("../../templates/en/reveal_result.hbs"),
    ),
    (
        "gm_notice",
        Lang::Sv,
        include_str!("../../templates/sv/gm_notice.hbs"),
    ),
    (
        "gm_notice",
        Lang::En,
        include_str!("../../templates/en/gm_notice.hbs"),
    ),
    (
        "gm_answer",
        Lang::Sv,
        include_str!("../../templates/sv/gm_answer.hbs"),
    ),
    (
        "gm_answer",
        Lang::En,
        include_str!("../../templates/en/gm_answer.hbs"),
    ),
];

/// Why rendering failed. These are program errors (a template bug or a
/// wrong name), not rule outcomes.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("template {name} does not compile: {source}")]
    Template {
        name: String,
        #[source]
        source: Box<handlebars::TemplateError>,
    },
    #[error("rendering {name} failed: {source}")]
    Render {
        name: String,
        #[source]
        source: Box<handlebars::RenderError>,
    },
    #[error("no template {name} for language {lang}")]
    NoTemplate { name: String, lang: &'static str },
    #[error("no realm named {0}")]
    UnknownRealm(String),
    #[error("view data: {0}")]
    Data(#[from] serde_json::Error),
}

/// The template registry.
pub struct Renderer {
    hb: Handlebars<'static>,
    /// Templates registered over the embedded ones (`"<lang>/<name>"`): these are
    /// rendered by handlebars even where `direct` writes the embedded one.
    replaced: Vec<String>,
}

impl Renderer {
    /// A registry holding every template in `TEMPLATES`, strict, with no
    /// HTML escaping (the output is plain text).
    pub fn new() -> Result<Renderer, RenderError> {
        let mut hb = Handlebars::new();
        hb.set_strict_mode(true);
        hb.register_escape_fn(handlebars::no_escape);
        hb.register_helper("wrap", Box::new(WrapHelper));
        hb.register_helper("count", Box::new(CountHelper));
        let mut r = Renderer {
            hb,
            replaced: Vec::new(),
        };
        for (name, lang, src) in TEMPLATES {
            r.add(key(name, *lang), src)?;
        }
        Ok(r)
    }

    /// Add (or replace) template `name` for `lang` as `"<lang>/<name>"`.
    pub fn register(&mut self, name: &str, lang: Lang, source: &str) -> Result<(), RenderError> {
        let key = key(name, lang);
        self.replaced.push(key.clone());
        self.add(key, source)
    }

    fn add(&mut self, key: String, source: &str) -> Result<(), RenderError> {
        self.hb
            .register_template_string(&key, source)
            .map_err(|e| RenderError::Template {
                name: key,
                source: Box::new(e),
            })
    }

    /// Render template `name` in `lang` with any data.
    pub fn render(
        &self,
        name: &str,
        lang: Lang,
        data: &serde_json::Value,
    ) -> Result<String, RenderError> {
        // handlebars would copy `data` into its context all the same.
        self.render_owned(name, lang, data.clone())
    }

    /// As [`Renderer::render`], with data the caller no longer needs: it becomes the
    /// template's context as it is, where `render` copies it (the courier renders two
    /// texts an envoy, one holding the envoy's whole text).
    pub fn render_owned(
        &self,
        name: &str,
        lang: Lang,
        data: serde_json::Value,
    ) -> Result<String, RenderError> {
        let key = key(name, lang);
        if !self.replaced.contains(&key) {
            if let Some(text) = direct::render(name, lang, &data) {
                return Ok(text);
            }
        }
        self.through_handlebars(key, name, lang, data)
    }

    /// Template `key` (`name` in `lang`) rendered by handlebars.
    fn through_handlebars(
        &self,
        key: String,
        name: &str,
        lang: Lang,
        data: serde_json::Value,
    ) -> Result<String, RenderError> {
        if !self.hb.has_template(&key) {
            return Err(RenderError::NoTemplate {
                name: name.to_string(),
                lang: lang.code(),
            });
        }
        // Into a buffer of our own: handlebars' own starts every text at 8 KiB and keeps
        // that, which is many times a reply's size when thousands are held at once.
        let mut out = Vec::with_capacity(2048);
        let rendered = self
            .hb
            .render_with_context_to_write(&key, &Context::from(data), &mut out)
            .map_err(|e| RenderError::Render {
                name: key.clone(),
                source: Box::new(e),
            });
        rendered?;
        String::from_utf8(out).map_err(|e| RenderError::Render {
            name: key,
            source: Box::new(handlebars::RenderErrorReason::Other(e.to_string()).into()),
        })
    }

    /// The Monday result form of `realm`, in the realm's language.
    pub fn result_form(
        &self,
        state: &GameState,
        realm: &str,
        ctx: &FormContext,
    ) -> Result<String, RenderError> {
        self.result_form_with(state, realm, ctx, &[])
    }

    /// The Monday result form of `realm` whose "last weekend" section tells what the
    /// realm may know of the weekend's `events`.
    pub fn result_form_with(
        &self,
        state: &GameState,
        realm: &str,
        ctx: &FormContext,
        events: &[crate::game::event::Event],
    ) -> Result<String, RenderError> {
        self.result_form_in(&view::FormIndex::new(state, events), realm, ctx)
    }

    /// As `result_form_with`, from an index of the state and the weekend's events built
    /// once for every realm's form.
    pub fn result_form_in(
        &self,
        ix: &view::FormIndex,
        realm: &str,
        ctx: &FormContext,
    ) -> Result<String, RenderError> {
        let lang = ix
            .realm(realm)
            .ok_or_else(|| RenderError::UnknownRealm(realm.to_string()))?
            .language;
        let view = FormView::build_in(ix, realm, ctx)
            .ok_or_else(|| RenderError::UnknownRealm(realm.to_string()))?;
        // The view's JSON is made for this one text: handed over, not copied.
        let text = self.render_owned("result_form", lang, serde_json::to_value(&view)?)?;
        Ok(tidy(&text))
    }
}

/// Block helper `{{#wrap indent=2}}…{{/wrap}}`: renders its content, then
/// word-wraps it to `WIDTH` with a hanging indent, so prose with
/// variables of any length stays inside the form width.
struct WrapHelper;

impl HelperDef for WrapHelper {
    fn call<'reg: 'rc, 'rc>(
        &self,
        h: &Helper<'rc>,
        r: &'reg Handlebars<'reg>,
        ctx: &'rc Context,
        rc: &mut RenderContext<'reg, 'rc>,
        out: &mut dyn Output,
    ) -> HelperResult {
        let indent = h
            .hash_get("indent")
            .and_then(|v| v.value().as_u64())
            .unwrap_or(0) as usize;
        let mut buf = StringOutput::new();
        if let Some(t) = h.template() {
            t.render(r, ctx, rc, &mut buf)?;
        }
        let text = buf
            .into_string()
            .map_err(|e| handlebars::RenderErrorReason::Other(e.to_string()))?;
        out.write(&wrap_hanging(&text, WIDTH, indent).join("\n"))?;
        Ok(())
    }
}

/// `{{count n "enhet" "enheter"}}`: the number and the noun agreeing with it
/// (`1 enhet`, `2 enheter`), so no template writes "1 units".
struct CountHelper;

impl HelperDef for CountHelper {
    fn call<'reg: 'rc, 'rc>(
        &self,
        h: &Helper<'rc>,
        _: &'reg Handlebars<'reg>,
        _: &'rc Context,
        _: &mut RenderContext<'reg, 'rc>,
        out: &mut dyn Output,
    ) -> HelperResult {
        let param = |i: usize| {
            h.param(i)
                .ok_or(handlebars::RenderErrorReason::ParamNotFoundForIndex(
                    "count", i,
                ))
        };
        let n = param(0)?.value();
        let n = n.as_i64().ok_or_else(|| {
            handlebars::RenderErrorReason::InvalidParamType("count: a whole number")
        })?;
        let word = |i: usize| param(i).map(|p| p.value().as_str().unwrap_or_default().to_string());
        out.write(&crate::game::lang::count(n, &word(1)?, &word(2)?))?;
        Ok(())
    }
}

fn key(name: &str, lang: Lang) -> String {
    format!("{}/{name}", lang.code())
}

/// Trailing spaces off every line, at most one blank line in a row, one
/// final newline.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = false;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            if blank {
                continue;
            }
            blank = true;
        } else {
            blank = false;
        }
        out.push_str(line);
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `"<lang>/<name>"` through handlebars alone, and written directly.
    fn both_ways(
        r: &Renderer,
        name: &str,
        lang: Lang,
        data: &serde_json::Value,
    ) -> (String, Option<String>) {
        let hb = r
            .through_handlebars(key(name, lang), name, lang, data.clone())
            .unwrap();
        (hb, direct::render(name, lang, data))
    }

    fn receipts(texts: &[&str]) -> Vec<serde_json::Value> {
        let mut all = Vec::new();
        for to in ["", texts[0]] {
            for free in [true, false] {
                for goods in ["", texts[1]] {
                    for spies in ["", "3"] {
                        for left in [0, 7] {
                            all.push(serde_json::json!({
                                "realm": texts[2], "kind": "ett sändebud", "to": to,
                                "free": free, "charged": texts[3], "allowance_left": left,
                                "stock_after": texts[4], "goods": goods, "spies_left": spies,
                                "then": texts[left as usize % texts.len()],
                            }));
                        }
                    }
                }
            }
        }
        all
    }

    fn deliveries(texts: &[&str]) -> Vec<serde_json::Value> {
        let mut all = Vec::new();
        for gift in ["", texts[0]] {
            for invitation in ["", "C4"] {
                for reply in [true, false] {
                    all.push(serde_json::json!({
                        "from": texts[1], "to": texts[2], "text": texts[3],
                        "sent": texts[4], "gift": gift, "invitation": invitation,
                        "reply_is_envoy": reply,
                    }));
                }
            }
        }
        all
    }

    /// The courier's receipt and delivery written directly are byte for byte what
    /// their templates give, in both languages and every branch of each (receiver or
    /// not, free or charged, goods, spies, a gift, an invitation), with text that holds
    /// line ends, braces, backslashes and non-ASCII letters.
    #[test]
    fn the_direct_texts_are_the_templates_texts() {
        let plain = ["Afani", "2 järn", "Genogien", "1 guld", "5 guld, 3 järn"];
        let odd = [
            "Nya Östvik",
            "{{gift}} \\ \"x\"",
            "a\n\nb",
            "Hej!\r\n\n  indented\n{{to}}\n",
            "måndag 3 mars 12:00",
        ];
        let r = Renderer::new().unwrap();
        let mut checked = 0;
        for texts in [plain, odd] {
            for lang in [Lang::Sv, Lang::En] {
                for (name, all) in [
                    ("courier_receipt", receipts(&texts)),
                    ("envoy_delivery", deliveries(&texts)),
                ] {
                    for data in all {
                        let (hb, direct) = both_ways(&r, name, lang, &data);
                        assert_eq!(
                            direct.as_deref(),
                            Some(hb.as_str()),
                            "{name} {lang:?} {data}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 2 * 2 * (32 + 8));
        proptest::proptest!(|(t in proptest::collection::vec(".{0,30}", 5), sv: bool)| {
            let texts: Vec<&str> = t.iter().map(String::as_str).collect();
            let lang = if sv { Lang::Sv } else { Lang::En };
            for (name, all) in [
                ("courier_receipt", receipts(&texts)),
                ("envoy_delivery", deliveries(&texts)),
            ] {
                for data in all {
                    let (hb, direct) = both_ways(&r, name, lang, &data);
                    proptest::prop_assert_eq!(direct, Some(hb));
                }
            }
        });
    }

    /// Data of another shape than the courier's (a field missing, a value of another
    /// type), and a template registered over an embedded one, go through handlebars: a
    /// missing field is still the strict mode's error, a replaced text is used.
    #[test]
    fn only_the_couriers_data_for_the_embedded_templates_is_written_directly() {
        let mut data = deliveries(&["x", "Afani", "Genogien", "t", "now"]).remove(0);
        data.as_object_mut().unwrap().remove("sent");
        assert!(direct::render("envoy_delivery", Lang::En, &data).is_none());
        let mut r = Renderer::new().unwrap();
        assert!(r.render("envoy_delivery", Lang::En, &data).is_err());
        data["sent"] = serde_json::json!(["a list"]);
        assert!(direct::render("envoy_delivery", Lang::En, &data).is_none());
        data["sent"] = serde_json::json!("now");
        assert!(direct::render("envoy_delivery", Lang::En, &data).is_some());
        r.register("envoy_delivery", Lang::En, "to {{to}}").unwrap();
        assert_eq!(
            r.render("envoy_delivery", Lang::En, &data).unwrap(),
            "to Genogien"
        );
        assert_ne!(
            r.render("envoy_delivery", Lang::Sv, &data).unwrap(),
            "to Genogien"
        );
    }

    #[test]
    fn the_count_helper_makes_the_noun_agree_with_its_number() {
        let mut r = Renderer::new().unwrap();
        r.register("t", Lang::En, r#"{{count n "unit" "units"}}"#)
            .unwrap();
        let at = |n: i64| {
            r.render("t", Lang::En, &serde_json::json!({ "n": n }))
                .unwrap()
        };
        assert_eq!(at(1), "1 unit");
        assert_eq!(at(0), "0 units");
        assert_eq!(at(12), "12 units");
        let missing = r.render("t", Lang::En, &serde_json::json!({}));
        assert!(missing.is_err(), "strict mode: a missing count is an error");
    }
}
