//! The map pictures on the realms' forms: each playing realm's Monday form and opening
//! form carries a PNG of what the realm sees (`karta.png` / `map.png`, and a second
//! picture of the Evil's dimension when it sees anything there). A picture that fails to
//! draw is left out and logged; the form goes out all the same. The GM's drafts page
//! shows the same pictures as SVG.

use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::{App, Result};
use crate::clock;
use crate::game::state::{Dimension, Realm};
use crate::game::GameState;
use crate::mail::compose::{self, Attachment, Outgoing};
use crate::render::map::{self, Glyphs, MapIndex, Viewer};
use crate::store::{outbox, Conn};

/// The pictures of one state, for every realm's form (indexed once).
pub struct Pictures<'g> {
    ix: Option<MapIndex<'g>>,
    glyphs: Option<Arc<Glyphs>>,
}

impl<'g> Pictures<'g> {
    /// Ready to draw `gs` for each realm; nothing when `render.map_pictures` is off.
    pub fn new(app: &App, gs: &'g GameState) -> Self {
        if !app.cfg.render.map_pictures {
            return Pictures {
                ix: None,
                glyphs: None,
            };
        }
        Pictures {
            ix: Some(MapIndex::new(gs)),
            glyphs: map::font(&app.cfg.render.font),
        }
    }

    /// The realm's pictures: its normal-dimension map, and the Evil's dimension when it
    /// sees anything there. Empty pictures are left out.
    pub fn of(&self, realm: &Realm) -> Vec<Attachment> {
        self.drawn_by(realm, |v| {
            map::png_with(v, realm.language.code(), self.glyphs.as_deref())
        })
    }

    /// The same pictures as SVG, for the GM's drafts page: (dimension, SVG document).
    pub fn svgs(&self, realm: &Realm) -> Vec<(Dimension, String)> {
        self.views(realm)
            .into_iter()
            .map(|(dim, v)| (dim, map::svg(&v, realm.language.code())))
            .collect()
    }

    /// What the realm's pictures show: each dimension it sees anything of.
    fn views(&self, realm: &Realm) -> Vec<(Dimension, map::MapView)> {
        let Some(ix) = &self.ix else {
            return Vec::new();
        };
        [Dimension::Normal, Dimension::Evil]
            .into_iter()
            .map(|dim| (dim, ix.view(Viewer::Realm(&realm.name), dim)))
            .filter(|(_, v)| !v.is_empty())
            .collect()
    }

    /// [`Pictures::of`] with `draw` making each picture's bytes; a picture it fails
    /// (or panics) on is left out and logged.
    fn drawn_by(
        &self,
        realm: &Realm,
        draw: impl Fn(&map::MapView) -> std::result::Result<Vec<u8>, String>,
    ) -> Vec<Attachment> {
        let mut out = Vec::new();
        for (dim, v) in self.views(realm) {
            let drawn = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| draw(&v)));
            match drawn.unwrap_or_else(|_| Err("drawing the picture panicked".to_string())) {
                Ok(bytes) => out.push(Attachment {
                    name: map::file_name(realm.language, dim).to_string(),
                    content_type: "image/png".to_string(),
                    bytes,
                }),
                Err(e) => tracing::warn!(
                    realm = %realm.name,
                    dimension = ?dim,
                    "the map picture was not drawn, the form goes without it: {e}"
                ),
            }
        }
        out
    }
}

impl App {
    /// [`App::enqueue`] with files after the text (a `multipart/mixed` mail when there
    /// are any; the same plain mail when there are none).
    pub async fn enqueue_with(
        &self,
        conn: &mut Conn,
        o: &Outgoing,
        files: &[Attachment],
    ) -> Result<i64> {
        let ids = self.enqueue_all(conn, &[o], files).await?;
        Ok(ids[0])
    }

    /// Queue many mails in the outbox in few statements (inside the caller's
    /// transaction); returns their row ids in order.
    pub async fn enqueue_many(&self, conn: &mut Conn, os: &[&Outgoing]) -> Result<Vec<i64>> {
        self.enqueue_all(conn, os, &[]).await
    }

    /// [`App::enqueue_many`] without reading the row ids back.
    pub async fn queue_many(&self, conn: &mut Conn, os: &[&Outgoing]) -> Result<()> {
        let tagged = super::sender_auth::tagged(self, conn, os).await?;
        let os: Vec<&Outgoing> = tagged.iter().map(|o| &**o).collect();
        let os = os.as_slice();
        let now = self.now();
        let made = self.made(os, &[], now)?;
        Ok(outbox::queue_many(conn, &self.rows(os, &made, now)).await?)
    }

    /// Queue `os`, each with `files` after its text: a plain mail as its text and
    /// head (formatted when it is sent, into the bytes it would be formatted as now),
    /// any other formatted now.
    async fn enqueue_all(
        &self,
        conn: &mut Conn,
        os: &[&Outgoing],
        files: &[Attachment],
    ) -> Result<Vec<i64>> {
        // The one way into the outbox: each realm's mail gets its token tag here.
        let tagged = super::sender_auth::tagged(self, conn, os).await?;
        let os: Vec<&Outgoing> = tagged.iter().map(|o| &**o).collect();
        let os = os.as_slice();
        let now = self.now();
        let made = self.made(os, files, now)?;
        Ok(outbox::enqueue_many(conn, &self.rows(os, &made, now)).await?)
    }

    /// `os` made ready for the outbox at `now`, each with `files` after its text.
    fn made(
        &self,
        os: &[&Outgoing],
        files: &[Attachment],
        now: DateTime<Utc>,
    ) -> Result<Vec<Made>> {
        let date = now.with_timezone(&self.schedule.timezone());
        let (game, name, from) = (
            &self.cfg.game_name,
            &self.cfg.display_name,
            &self.cfg.game_address,
        );
        // Made on the machine's cores at once (a courier batch queues hundreds).
        let made = super::par::map_runs(os, |run| {
            run.iter()
                .map(|o| {
                    if files.is_empty() {
                        if let Some(head) = compose::head_to_keep(o, name, from, date)? {
                            let message_id = compose::message_id_for(game, &o.dedup_key, from);
                            let head = serde_json::to_string(&head).map_err(|e| {
                                compose::ComposeError::Build(format!("a mail's head: {e}"))
                            })?;
                            return Ok(Made::Kept { message_id, head });
                        }
                    }
                    let c = compose::compose_with(o, files, game, name, from, date)?;
                    Ok(Made::Formatted(c))
                })
                .collect::<std::result::Result<Vec<_>, compose::ComposeError>>()
        })
        .into_iter()
        .collect::<std::result::Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .collect::<Vec<Made>>();
        Ok(made)
    }

    /// The outbox rows of `os` as `made`, queued at `now`.
    fn rows<'a>(
        &'a self,
        os: &[&'a Outgoing],
        made: &'a [Made],
        now: DateTime<Utc>,
    ) -> Vec<outbox::NewOutgoing<'a>> {
        let at = clock::to_ms(now);
        os.iter()
            .zip(made)
            .map(|(o, m)| {
                let (message_id, raw, kept) = match m {
                    Made::Kept { message_id, head } => (
                        message_id.as_str(),
                        &[][..],
                        Some(outbox::Kept {
                            head: head.as_str(),
                            body: &o.body,
                        }),
                    ),
                    Made::Formatted(c) => (c.message_id.as_str(), &c.raw[..], None),
                };
                outbox::NewOutgoing {
                    dedup_key: &o.dedup_key,
                    message_id,
                    kind: o.kind,
                    to_addrs: &o.to,
                    from_addr: &self.cfg.game_address,
                    subject: &o.subject,
                    raw,
                    kept,
                    at,
                }
            })
            .collect()
    }
}

/// A mail made ready for the outbox.
enum Made {
    /// Kept as its text and this head (JSON), formatted when it is read.
    Kept {
        message_id: String,
        head: String,
    },
    Formatted(compose::Composed),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> GameState {
        crate::game::load_scenario(include_str!("../../scenarios/demo.yaml")).unwrap()
    }

    fn pictures(gs: &GameState) -> Pictures<'_> {
        Pictures {
            ix: Some(MapIndex::new(gs)),
            glyphs: None,
        }
    }

    #[test]
    fn a_picture_that_fails_or_panics_is_left_out_and_the_rest_goes() {
        let gs = demo();
        let p = pictures(&gs);
        let afani = gs.realm("Afani").unwrap();
        let fine = p.drawn_by(afani, |_| Ok(vec![1, 2, 3]));
        assert_eq!(fine.len(), 1);
        assert_eq!(
            (fine[0].name.as_str(), fine[0].bytes.as_slice()),
            ("map.png", &[1, 2, 3][..])
        );
        assert!(p.drawn_by(afani, |_| Err("no".into())).is_empty());
        assert!(p
            .drawn_by(afani, |_| panic!("a bug while drawing"))
            .is_empty());
        let png = p.of(afani);
        assert_eq!(png.len(), 1);
        assert!(png[0].bytes.starts_with(&[0x89, b'P', b'N', b'G']));
    }

    #[test]
    fn switched_off_there_are_no_pictures() {
        let gs = demo();
        let off = Pictures {
            ix: None,
            glyphs: None,
        };
        assert!(off.of(gs.realm("Genogien").unwrap()).is_empty());
    }
}
