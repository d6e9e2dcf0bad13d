//! The courier's two texts an envoy (its receipt to the sender, the delivery to the
//! receiver), written straight from their data instead of through handlebars: the
//! same bytes as the embedded templates `courier_receipt` and `envoy_delivery` give
//! (`the_direct_texts_are_the_templates_texts` in render's tests renders every
//! language and every branch both ways). Only data of the shape the courier gives is
//! written here; anything else (a missing field, a value of another type) returns
//! `None` and goes through handlebars, which says what is wrong. Owns no templates;
//! reads nothing but the data.

use serde_json::{Map, Value};

use crate::game::Lang;

/// The text of embedded template `name` in `lang` for `data`, when it is one written
/// here and `data` has the courier's shape.
pub(super) fn render(name: &str, lang: Lang, data: &Value) -> Option<String> {
    let data = data.as_object()?;
    match name {
        "courier_receipt" => receipt(lang, data),
        "envoy_delivery" => delivery(lang, data),
        _ => None,
    }
}

/// A value as `{{name}}` prints it: a string as it is, a whole number in digits.
enum Shown<'a> {
    Text(&'a str),
    Number(String),
}

impl Shown<'_> {
    fn push_to(&self, out: &mut String) {
        match self {
            Shown::Text(s) => out.push_str(s),
            Shown::Number(n) => out.push_str(n),
        }
    }
}

fn shown<'a>(data: &'a Map<String, Value>, name: &str) -> Option<Shown<'a>> {
    match data.get(name)? {
        Value::String(s) => Some(Shown::Text(s)),
        Value::Number(n) if n.is_u64() || n.is_i64() => Some(Shown::Number(n.to_string())),
        _ => None,
    }
}

/// Whether `{{#if name}}` takes its branch: a true boolean, a non-empty string.
fn truthy(data: &Map<String, Value>, name: &str) -> Option<bool> {
    match data.get(name)? {
        Value::Bool(b) => Some(*b),
        Value::String(s) => Some(!s.is_empty()),
        _ => None,
    }
}

/// `templates/{en,sv}/courier_receipt.hbs`.
fn receipt(lang: Lang, data: &Map<String, Value>) -> Option<String> {
    let (sent, to, free, left, cost, goods, spies, stock) = match lang {
        Lang::En => (
            " sent ",
            " to ",
            "Within the free allowance; ",
            " free left this round.\n",
            "Cost: ",
            "Goods that left you: ",
            "Spies left at home: ",
            "Stock after this: ",
        ),
        Lang::Sv => (
            " skickade ",
            " till ",
            "Inom den fria kvoten; kvar att skicka fritt den här rundan: ",
            ".\n",
            "Kostnad: ",
            "Varor som lämnade er: ",
            "Spioner kvar hemma: ",
            "Lager efter detta: ",
        ),
    };
    let realm = shown(data, "realm")?;
    let kind = shown(data, "kind")?;
    let mut out = String::with_capacity(512);
    out.push_str(match lang {
        Lang::En => "Receipt: ",
        Lang::Sv => "Kvitto: ",
    });
    realm.push_to(&mut out);
    out.push_str(sent);
    kind.push_to(&mut out);
    if truthy(data, "to")? {
        out.push_str(to);
        shown(data, "to")?.push_to(&mut out);
    }
    out.push_str(".\n\n");
    if truthy(data, "free")? {
        out.push_str(free);
        shown(data, "allowance_left")?.push_to(&mut out);
        out.push_str(left);
    } else {
        out.push_str(cost);
        shown(data, "charged")?.push_to(&mut out);
        out.push_str(".\n");
    }
    line_if(&mut out, data, "goods", goods)?;
    line_if(&mut out, data, "spies_left", spies)?;
    out.push_str(stock);
    shown(data, "stock_after")?.push_to(&mut out);
    out.push_str(".\n\n");
    shown(data, "then")?.push_to(&mut out);
    out.push('\n');
    Some(out)
}

const RULE: &str = "----------------------------------------------------------------------\n";

/// The line `{{#if name}}<label>{{name}}.{{/if}}`.
fn line_if(out: &mut String, data: &Map<String, Value>, name: &str, label: &str) -> Option<()> {
    if truthy(data, name)? {
        out.push_str(label);
        shown(data, name)?.push_to(out);
        out.push_str(".\n");
    }
    Some(())
}

/// `templates/{en,sv}/envoy_delivery.hbs`.
fn delivery(lang: Lang, data: &Map<String, Value>) -> Option<String> {
    let from = shown(data, "from")?;
    let to = shown(data, "to")?;
    let sent = shown(data, "sent")?;
    let text = shown(data, "text")?;
    let reply = truthy(data, "reply_is_envoy")?;
    let (envoy_from, arrived, sent_at, gift, invitation, spent, answer, answer_end) = match lang {
        Lang::En => (
            "An envoy from ",
            " has arrived in ",
            "Sent ",
            "The envoy brings a gift: ",
            " to the square ",
            "\nThe envoy has delivered its message and is spent.\n",
            " sends an envoy to ",
            if reply {
                "\".\n"
            } else {
                "\", to the game's address.\n"
            },
        ),
        Lang::Sv => (
            "Ett sändebud från ",
            " har kommit till ",
            "Skickat ",
            "Sändebudet har med sig en gåva: ",
            " till rutan ",
            "\nSändebudet har framfört sitt budskap och är förbrukat.\n",
            " skickar ett sändebud till ",
            if reply {
                "\".\n"
            } else {
                "\", till spelets adress.\n"
            },
        ),
    };
    let mut out = String::with_capacity(1024 + text_len(&text));
    out.push_str(envoy_from);
    from.push_to(&mut out);
    out.push_str(arrived);
    to.push_to(&mut out);
    out.push_str(".\n");
    out.push_str(sent_at);
    sent.push_to(&mut out);
    out.push_str(".\n\n");
    out.push_str(RULE);
    text.push_to(&mut out);
    out.push('\n');
    out.push_str(RULE);
    // `{{#if gift}}` stands alone on its line, so handlebars drops that line: no
    // blank line before the gift (the invitation's tag follows `{{/if}}` and keeps it).
    if truthy(data, "gift")? {
        out.push_str(gift);
        shown(data, "gift")?.push_to(&mut out);
        out.push_str(".\n");
    }
    if truthy(data, "invitation")? {
        out.push_str(match lang {
            Lang::En => "\nThe envoy carries an invitation",
            Lang::Sv => "\nSändebudet bär en inbjudan",
        });
        out.push_str(invitation);
        shown(data, "invitation")?.push_to(&mut out);
        out.push_str(match lang {
            Lang::En => {
                ". It is valid\nthrough the next weekend and is used on the weekend form.\n"
            }
            Lang::Sv => ". Den gäller till och\nmed nästa helg och används på helgformuläret.\n",
        });
    }
    out.push_str(spent);
    match (lang, reply) {
        (Lang::En, true) => {
            out.push_str("Reply to this mail and ");
            to.push_to(&mut out);
            out.push_str(" sends an envoy of its own to ");
            from.push_to(&mut out);
            out.push_str(
                "\nwith your text; it counts and costs as any envoy. You may also write a\n\
                 new mail to the game's address with the subject line\n\"",
            );
        }
        (Lang::Sv, true) => {
            out.push_str("Svara på det här brevet så skickar ");
            to.push_to(&mut out);
            out.push_str(" ett eget sändebud till\n");
            from.push_to(&mut out);
            out.push_str(
                " med din text; det räknas och kostar som vilket sändebud som helst.\n\
                 Du kan också skriva ett nytt brev till spelets adress med ämnesraden\n\"",
            );
        }
        (Lang::En, false) => out.push_str("To answer, send an envoy of your own: subject line\n\""),
        (Lang::Sv, false) => {
            out.push_str("Svara genom att skicka ett eget sändebud: ämnesraden\n\"")
        }
    }
    to.push_to(&mut out);
    out.push_str(answer);
    from.push_to(&mut out);
    out.push_str(answer_end);
    Some(out)
}

fn text_len(s: &Shown<'_>) -> usize {
    match s {
        Shown::Text(s) => s.len(),
        Shown::Number(n) => n.len(),
    }
}
