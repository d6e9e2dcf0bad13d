//! `pbemd.yaml`: the settings of one game, read and validated once at start.
//!
//! Owns the YAML format and its checks. Secrets (passwords, the webhook secret) never
//! sit in the file itself: the file names an environment variable (`*_env`) or a file
//! (`*_file`) that holds them. Relative paths are resolved against the config file's
//! folder, so a game directory can be moved as a whole.
//!
//! `serde_yaml` is archived upstream; it is used only here, so swapping it touches one
//! file.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::transport::diagnose::{Protocol, Server};
use crate::transport::imap::{ImapParams, TlsMode};
use crate::transport::smtp::SmtpParams;

mod keys;
pub use keys::{key_paths, key_values};

/// Why the configuration cannot be used. The message names the key and the fix.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("config file {path}: {message}")]
    Syntax { path: PathBuf, message: String },
    #[error("config file {path}: key `{key}`: {message}")]
    Invalid {
        path: PathBuf,
        key: String,
        message: String,
    },
}

/// The whole file, as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    game: RawGame,
    database: String,
    scenario: PathBuf,
    #[serde(default)]
    schedule: Option<PathBuf>,
    inbound: RawInbound,
    outbound: RawOutbound,
    #[serde(default)]
    webhook: Option<RawWebhook>,
    #[serde(default)]
    http: Option<RawHttp>,
    #[serde(default = "default_sender_check")]
    sender_check: SenderCheck,
    /// The authserv-id of the game's own receiving server (`sender_check: dkim`).
    #[serde(default)]
    authserv_id: Option<String>,
    #[serde(default)]
    limits: Limits,
    #[serde(default)]
    outbox: OutboxSettings,
    #[serde(default)]
    forms: FormSettings,
    #[serde(default)]
    courier: CourierSettings,
    #[serde(default)]
    season: SeasonSettings,
    #[serde(default)]
    render: RenderSettings,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGame {
    #[serde(default = "default_game_name")]
    name: String,
    address: String,
    gm_address: String,
    #[serde(default = "default_display_name")]
    display_name: String,
    #[serde(default)]
    seed: Option<u64>,
    /// The language of the GM's own mail (the report after each resolution): `sv`
    /// (default) or `en`.
    #[serde(default)]
    gm_language: crate::game::Lang,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInbound {
    #[serde(default)]
    maildir: Option<PathBuf>,
    #[serde(default)]
    imap: Option<RawImap>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawImap {
    host: String,
    #[serde(default)]
    port: Option<u16>,
    user: String,
    #[serde(default)]
    password_env: Option<String>,
    #[serde(default)]
    password_file: Option<PathBuf>,
    #[serde(default = "default_tls")]
    tls: TlsMode,
    #[serde(default)]
    ca_file: Option<PathBuf>,
    #[serde(default = "default_mailbox")]
    mailbox: String,
    #[serde(default = "default_true")]
    idle: bool,
    #[serde(default = "default_poll")]
    poll_seconds: u64,
    #[serde(default = "default_fetch_batch")]
    fetch_batch: usize,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOutbound {
    #[serde(default)]
    maildir: Option<PathBuf>,
    #[serde(default)]
    smtp: Option<RawSmtp>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSmtp {
    host: String,
    #[serde(default)]
    port: Option<u16>,
    #[serde(default)]
    user: Option<String>,
    #[serde(default)]
    password_env: Option<String>,
    #[serde(default)]
    password_file: Option<PathBuf>,
    #[serde(default = "default_tls")]
    tls: TlsMode,
    #[serde(default)]
    ca_file: Option<PathBuf>,
    #[serde(default = "default_hello")]
    hello_name: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWebhook {
    #[serde(default = "default_secret_env")]
    secret_env: String,
    #[serde(default = "default_window")]
    window_seconds: i64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHttp {
    /// Optional so that `pbemd gm passwd` may write the block before `listen` is set;
    /// without it nothing is served.
    #[serde(default)]
    listen: Option<String>,
    /// The GM's Argon2id password hash (a PHC string, written by `pbemd gm passwd`).
    #[serde(default)]
    gm_password_hash: Option<String>,
    #[serde(default = "default_session_hours")]
    session_hours: u32,
    #[serde(default)]
    secure_cookies: SecureCookies,
    #[serde(default = "default_trusted_proxies")]
    trusted_proxies: Vec<std::net::IpAddr>,
    /// The site's address as players reach it (`https://game.example.org`); links in
    /// mails are built from it. Without it no link is offered.
    #[serde(default)]
    public_url: Option<String>,
    /// How many days a realm's login link is valid.
    #[serde(default = "default_link_days")]
    link_days: u32,
}

fn default_link_days() -> u32 {
    14
}

/// When the site's cookies carry `Secure` (`http.secure_cookies`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SecureCookies {
    /// When the request came over TLS, or a trusted proxy (`http.trusted_proxies`)
    /// said `X-Forwarded-Proto: https`.
    #[default]
    Auto,
    Always,
    Never,
}

/// The web site's settings (the `http:` block next to `listen`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpSettings {
    /// The GM's Argon2id password hash (PHC string); `None`: the desk is disabled until
    /// `pbemd gm passwd` was run.
    pub gm_password_hash: Option<String>,
    /// How long a GM login lasts, in hours (default 12).
    pub session_hours: u32,
    /// When cookies are marked `Secure` (default `auto`).
    pub secure_cookies: SecureCookies,
    /// Peers whose `X-Forwarded-For` / `X-Forwarded-Proto` are believed (default:
    /// loopback only, `127.0.0.1` and `::1`).
    pub trusted_proxies: Vec<std::net::IpAddr>,
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings {
            gm_password_hash: None,
            session_hours: default_session_hours(),
            secure_cookies: SecureCookies::Auto,
            trusted_proxies: default_trusted_proxies(),
        }
    }
}

fn default_session_hours() -> u32 {
    12
}

fn default_trusted_proxies() -> Vec<std::net::IpAddr> {
    use std::net::{Ipv4Addr, Ipv6Addr};
    vec![Ipv4Addr::LOCALHOST.into(), Ipv6Addr::LOCALHOST.into()]
}

/// How a mail is proven to come from its realm (docs/reference/mail.md, Proving the sender).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SenderCheck {
    /// The From address alone (local Maildir play, tests).
    FromOnly,
    /// From plus a DKIM/DMARC pass in a trusted `Authentication-Results` header.
    Dkim,
    /// From plus the realm's secret token in the mail.
    Token,
    /// From plus either a DKIM/DMARC pass or the token.
    DkimOrToken,
}

impl SenderCheck {
    /// Does this mode read `Authentication-Results` headers?
    pub fn uses_dkim(self) -> bool {
        matches!(self, SenderCheck::Dkim | SenderCheck::DkimOrToken)
    }

    /// Does this mode read the realms' tokens?
    pub fn uses_token(self) -> bool {
        matches!(self, SenderCheck::Token | SenderCheck::DkimOrToken)
    }

    /// The mode as written in `pbemd.yaml`.
    pub fn as_str(self) -> &'static str {
        match self {
            SenderCheck::FromOnly => "from-only",
            SenderCheck::Dkim => "dkim",
            SenderCheck::Token => "token",
            SenderCheck::DkimOrToken => "dkim-or-token",
        }
    }
}

/// Size limits on what comes in.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Mails larger than this are not classified: the sender is told, the GM sees it.
    #[serde(default = "default_max_mail")]
    pub max_mail_bytes: usize,
    /// `tick --now` further than this past the game's latest time is refused unless
    /// `--force` (a mistyped date would fire weeks of events at once).
    #[serde(default = "default_max_tick_span_days")]
    pub max_tick_span_days: u32,
    /// Flood control: at most this many replies (refusals, receipts, acknowledgements,
    /// resent forms) to one realm's mail per clock hour; the rest are held for the GM.
    #[serde(default = "default_max_replies_per_hour")]
    pub max_replies_per_hour: u32,
    /// A realm may ask for its latest form again this many times a day.
    #[serde(default = "default_max_resends_per_day")]
    pub max_resends_per_day: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_mail_bytes: default_max_mail(),
            max_tick_span_days: default_max_tick_span_days(),
            max_replies_per_hour: default_max_replies_per_hour(),
            max_resends_per_day: default_max_resends_per_day(),
        }
    }
}

/// What happens to a realm that sends no weekend form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum MissingForm {
    /// Its units stand still and nothing is bought (the seed game's practice).
    #[default]
    StandStill,
    /// Last round's orders are checked again against the current state; those the
    /// rules still allow stand for this round.
    ReuseLast,
}

/// When the courier decides queued mail (R-MAIL-6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum CourierMode {
    /// A batch right after each batch of mail is handled.
    #[default]
    Immediate,
    /// At the schedule's `courier_batch` events (the GM "checks mail about once a
    /// day"; default 18:00 and 23:00 Monday to Friday and at the window's close).
    Batches,
}

/// Which player mail waits for the GM before the courier decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Review {
    /// None: everything goes straight to the courier.
    #[default]
    None,
    /// Invitations, forgeries, gifts and goods, unreadable trailers, Reveal and
    /// home-invitations.
    Flagged,
    /// Every envoy, merchant, spy and GM request.
    All,
}

/// Courier settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CourierSettings {
    #[serde(default)]
    pub mode: CourierMode,
    #[serde(default)]
    pub review: Review,
    /// A realm's plain Reply to an envoy delivered to it is an envoy to the realm the
    /// delivery named (charged and windowed like any envoy); `false`: it is refused,
    /// naming the subject to write instead.
    #[serde(default = "default_true")]
    pub reply_is_envoy: bool,
}

impl Default for CourierSettings {
    fn default() -> Self {
        CourierSettings {
            mode: CourierMode::default(),
            review: Review::default(),
            reply_is_envoy: true,
        }
    }
}

fn default_max_pause_days() -> u32 {
    21
}

fn default_max_extend_hours() -> u32 {
    48
}

/// What happens to a weekend form that arrives before its window opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum EarlyForm {
    /// Kept as the realm's form for the coming weekend: checked now, and again against
    /// the state when the window opens (RULINGS 64).
    #[default]
    Keep,
    /// Refused, as mail outside its window is (R-MAIL-11).
    Refuse,
}

/// Weekend-form settings.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FormSettings {
    #[serde(default)]
    pub missing: MissingForm,
    #[serde(default)]
    pub early: EarlyForm,
}

/// The map pictures on the realms' forms (docs/gm/web.md, Map pictures).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenderSettings {
    /// The TrueType font of the pictures' labels and numbers (default: DejaVu Sans from
    /// Debian's `fonts-dejavu-core`). A relative path is read from the config's folder.
    /// When the file cannot be read the pictures are drawn without text and a warning
    /// is logged.
    #[serde(default = "default_font")]
    pub font: PathBuf,
    /// Attach each realm's map picture (PNG) to its Monday form and opening form.
    #[serde(default = "default_true")]
    pub map_pictures: bool,
    /// A Monday form (and a reminder) names every other realm in a game of at most
    /// this many other realms; in a larger game it gives their number and names the
    /// realm's neighbours (D-19). The opening forms name them all.
    #[serde(default = "default_realms_listed")]
    pub realms_listed: usize,
}

/// `render.realms_listed`: a hundred names are some fifteen lines of a form.
pub const DEFAULT_REALMS_LISTED: usize = 100;

fn default_realms_listed() -> usize {
    DEFAULT_REALMS_LISTED
}

fn default_font() -> PathBuf {
    PathBuf::from(crate::render::map::DEFAULT_FONT)
}

impl Default for RenderSettings {
    fn default() -> Self {
        RenderSettings {
            font: default_font(),
            map_pictures: true,
            realms_listed: DEFAULT_REALMS_LISTED,
        }
    }
}

/// The GM's season: absences, missed weekends and replacements (docs/gm/season.md).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeasonSettings {
    /// The most weekends one absence mail (`<Realm> to GM: absence N`) may cover.
    #[serde(default = "default_max_absence_weekends")]
    pub max_absence_weekends: u32,
    /// Absences a realm may announce by mail in one game; beyond them the mail waits
    /// in the GM queue and the GM decides.
    #[serde(default = "default_max_absences")]
    pub max_absences: u32,
    /// Weekends missed in a row (no form, not absent) after which a realm is marked
    /// as seeking a replacement and the GM is told.
    #[serde(default = "default_missed_before_replacement")]
    pub missed_before_replacement: u32,
    /// The longest pause, in days: a `gm pause` without `--until` ends after this
    /// long, and a later `--until` is refused (default 21).
    #[serde(default = "default_max_pause_days")]
    pub max_pause_days: u32,
    /// The most hours `gm extend` may move a form deadline (default 48).
    #[serde(default = "default_max_extend_hours")]
    pub max_extend_hours: u32,
}

fn default_max_absence_weekends() -> u32 {
    3
}

fn default_max_absences() -> u32 {
    2
}

fn default_missed_before_replacement() -> u32 {
    2
}

impl Default for SeasonSettings {
    fn default() -> Self {
        SeasonSettings {
            max_absence_weekends: default_max_absence_weekends(),
            max_absences: default_max_absences(),
            missed_before_replacement: default_missed_before_replacement(),
            max_pause_days: default_max_pause_days(),
            max_extend_hours: default_max_extend_hours(),
        }
    }
}

/// Retry policy of the outbox.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutboxSettings {
    /// First retry delay; doubles per attempt.
    #[serde(default = "default_backoff")]
    pub retry_base_seconds: i64,
    /// Longest delay between two attempts.
    #[serde(default = "default_backoff_cap")]
    pub retry_max_seconds: i64,
    /// After this many failed attempts the mail is marked failed and shown to the GM.
    #[serde(default = "default_attempts")]
    pub max_attempts: i64,
}

impl Default for OutboxSettings {
    fn default() -> Self {
        OutboxSettings {
            retry_base_seconds: default_backoff(),
            retry_max_seconds: default_backoff_cap(),
            max_attempts: default_attempts(),
        }
    }
}

fn default_game_name() -> String {
    "game".into()
}
fn default_display_name() -> String {
    "Världsstrategispelet".into()
}
fn default_sender_check() -> SenderCheck {
    SenderCheck::FromOnly
}
fn default_tls() -> TlsMode {
    TlsMode::Starttls
}
fn default_mailbox() -> String {
    "INBOX".into()
}
fn default_true() -> bool {
    true
}
fn default_poll() -> u64 {
    60
}
fn default_fetch_batch() -> usize {
    500
}
fn default_hello() -> String {
    "localhost".into()
}
fn default_secret_env() -> String {
    "PBEMD_WEBHOOK_SECRET".into()
}
fn default_window() -> i64 {
    300
}
fn default_max_mail() -> usize {
    10 * 1024 * 1024
}
fn default_max_tick_span_days() -> u32 {
    14
}
fn default_max_replies_per_hour() -> u32 {
    30
}
fn default_max_resends_per_day() -> u32 {
    3
}
fn default_backoff() -> i64 {
    30
}
fn default_backoff_cap() -> i64 {
    3600
}
fn default_attempts() -> i64 {
    12
}

/// Where mail comes from.
#[derive(Debug, Clone)]
pub enum Inbound {
    /// A standard Maildir: pbemd takes from `new/`, moves to `cur/` once stored.
    Maildir(PathBuf),
    /// An IMAP mailbox.
    Imap(ImapSettings),
}

/// IMAP intake settings, password resolved.
#[derive(Debug, Clone)]
pub struct ImapSettings {
    pub params: ImapParams,
    pub idle: bool,
    pub poll_seconds: u64,
    pub fetch_batch: usize,
}

/// Where mail goes.
#[derive(Debug, Clone)]
pub enum Outbound {
    /// One RFC 5322 file per mail in `new/`.
    Maildir(PathBuf),
    /// An SMTP submission server.
    Smtp(SmtpParams),
}

/// The webhook's authentication settings, secret resolved.
#[derive(Clone)]
pub struct Webhook {
    pub secret: Vec<u8>,
    pub window_seconds: i64,
}

impl std::fmt::Debug for Webhook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Webhook")
            .field("secret", &"<hidden>")
            .field("window_seconds", &self.window_seconds)
            .finish()
    }
}

/// Where a mail server's password comes from (`password_env` or `password_file`), and why
/// it could not be read, if it could not. Read at load; required only by the commands that
/// talk to that server (docs/gm/first-game.md, "Which commands need the mail passwords").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Secret {
    /// The key that names it: `inbound.imap.password_env`, `outbound.smtp.password_file` …
    pub key: String,
    /// The variable's name or the file's path.
    pub from: String,
    /// Why it could not be read (`None`: it was read).
    pub missing: Option<String>,
}

/// The validated configuration every part of pbemd reads.
#[derive(Debug, Clone)]
pub struct Config {
    pub path: PathBuf,
    pub game_name: String,
    pub game_address: String,
    pub gm_address: String,
    pub display_name: String,
    /// Seeds the game state's dice at `init` (over the scenario's own seed);
    /// every roll afterwards comes from the seed stored in the state.
    pub seed: Option<u64>,
    /// The language of the GM's report after each resolution (`game.gm_language`).
    pub gm_language: crate::game::Lang,
    pub database_url: String,
    pub scenario: PathBuf,
    /// `None`: the built-in rulebook week (`schedules/default.yaml`).
    pub schedule: Option<PathBuf>,
    pub inbound: Inbound,
    pub outbound: Outbound,
    /// `None` also when the webhook is configured but its secret's variable is unset
    /// (then [`Config::require_run_secrets`] refuses `pbemd run`).
    pub webhook: Option<Webhook>,
    /// The webhook's `secret_env` when the webhook is configured and that variable is unset.
    pub webhook_unset: Option<String>,
    /// Where the IMAP password comes from and whether it could be read (IMAP intake).
    pub imap_password: Option<Secret>,
    /// Where the SMTP password comes from and whether it could be read (SMTP with a
    /// `user`).
    pub smtp_password: Option<Secret>,
    /// Address for `/inbound`, `/healthz` and `/metrics` (`pbemd run` only).
    pub http_listen: Option<String>,
    /// The web site's login and cookie settings (`http.gm_password_hash`, …).
    pub http: HttpSettings,
    /// `http.public_url` without a trailing `/`: where realm links in mails point.
    /// `None`: the site is not public and mails offer no link.
    pub http_public_url: Option<String>,
    /// `http.link_days`: how long a realm's login link is valid (default 14).
    pub http_link_days: u32,
    pub sender_check: SenderCheck,
    /// The authserv-id whose `Authentication-Results` headers count (`dkim` modes:
    /// always set, lower-cased).
    pub authserv_id: Option<String>,
    pub limits: Limits,
    pub outbox: OutboxSettings,
    pub forms: FormSettings,
    pub courier: CourierSettings,
    pub season: SeasonSettings,
    /// The map pictures (`render.font`, `render.map_pictures`).
    pub render: RenderSettings,
}

impl Config {
    /// Read and validate a config file; environment variables supply the secrets.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_yaml(&text, path, &|k| std::env::var(k).ok())
    }

    /// The secrets the daemon needs (the mail servers' passwords and the webhook's):
    /// `pbemd run` calls this before starting.
    pub fn require_run_secrets(&self) -> Result<(), ConfigError> {
        self.require_mail_secrets()?;
        match &self.webhook_unset {
            None => Ok(()),
            Some(var) => Err(ConfigError::Invalid {
                path: self.path.clone(),
                key: "webhook.secret_env".into(),
                message: format!(
                    "environment variable {var} is not set; export the webhook secret there before `pbemd run`"
                ),
            }),
        }
    }

    /// Both mail servers' passwords (`pbemd tick`, which reads and sends mail).
    pub fn require_mail_secrets(&self) -> Result<(), ConfigError> {
        self.require_inbound_secret()?;
        self.require_outbound_secret()
    }

    /// The IMAP password, when mail comes over IMAP (reading the inbox).
    pub fn require_inbound_secret(&self) -> Result<(), ConfigError> {
        self.require(self.imap_password.as_ref(), "read the game's mail")
    }

    /// The SMTP password, when mail goes out over SMTP with a login (sending).
    pub fn require_outbound_secret(&self) -> Result<(), ConfigError> {
        self.require(self.smtp_password.as_ref(), "send mail")
    }

    fn require(&self, secret: Option<&Secret>, to: &str) -> Result<(), ConfigError> {
        match secret.and_then(|s| s.missing.as_ref().map(|m| (s, m))) {
            None => Ok(()),
            Some((s, missing)) => Err(ConfigError::Invalid {
                path: self.path.clone(),
                key: s.key.clone(),
                message: format!("the password to {to}: {missing}"),
            }),
        }
    }

    /// The IMAP server, for the words of its failures (IMAP intake only).
    pub fn imap_server(&self) -> Option<Server> {
        let Inbound::Imap(i) = &self.inbound else {
            return None;
        };
        let p = &i.params;
        Some(Server {
            protocol: Protocol::Imap,
            key: "inbound.imap".into(),
            host: p.host.clone(),
            port: p.port,
            user: Some(p.user.clone()),
            password_from: self.imap_password.as_ref().map(|s| s.from.clone()),
            tls: p.tls,
            mailbox: Some(p.mailbox.clone()),
        })
    }

    /// The SMTP server, for the words of its failures (SMTP output only).
    pub fn smtp_server(&self) -> Option<Server> {
        let Outbound::Smtp(p) = &self.outbound else {
            return None;
        };
        Some(Server {
            protocol: Protocol::Smtp,
            key: "outbound.smtp".into(),
            host: p.host.clone(),
            port: p.port,
            user: p.user.clone(),
            password_from: self.smtp_password.as_ref().map(|s| s.from.clone()),
            tls: p.tls,
            mailbox: None,
        })
    }

    /// Why mail cannot be sent from here (the SMTP password could not be read), if so:
    /// commands that only queue mail then leave it in the outbox for `pbemd run`.
    pub fn outbound_secret_missing(&self) -> Option<String> {
        self.require_outbound_secret().err().map(|e| e.to_string())
    }

    /// Parse and validate config text. `env` looks up environment variables (injected so
    /// tests need not touch the process environment).
    pub fn from_yaml(
        text: &str,
        path: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let raw: RawConfig = serde_yaml::from_str(text).map_err(|e| ConfigError::Syntax {
            path: path.to_path_buf(),
            message: explain_yaml_error(&e),
        })?;
        let base = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let invalid = |key: &str, message: String| ConfigError::Invalid {
            path: path.to_path_buf(),
            key: key.into(),
            message,
        };
        let resolve = |p: &Path| -> PathBuf {
            if p.is_absolute() {
                p.to_path_buf()
            } else {
                base.join(p)
            }
        };
        for (key, addr) in [
            ("game.address", &raw.game.address),
            ("game.gm_address", &raw.game.gm_address),
        ] {
            if !looks_like_address(addr) {
                return Err(invalid(
                    key,
                    format!("`{addr}` is not a mail address; write it as name@domain"),
                ));
            }
        }
        let database_url =
            resolve_database_url(&raw.database, base).map_err(|m| invalid("database", m))?;

        // A password is read here, but one that cannot be read (an unset variable, an
        // unreadable file) fails only the commands that talk to that server
        // ([`Config::require_mail_secrets`] and its kin): `gm queue`, `state` and the
        // rest run without the mail passwords.
        let secret = |key: &str,
                      env_name: &Option<String>,
                      file: &Option<PathBuf>|
         -> Result<Option<(Option<String>, Secret)>, ConfigError> {
            match (env_name, file) {
                (Some(_), Some(_)) => Err(invalid(
                    key,
                    "give either password_env or password_file, not both".into(),
                )),
                (Some(var), None) => {
                    let value = env(var);
                    let missing = value.is_none().then(|| {
                        format!(
                            "environment variable {var} is not set; export it (or name a \
                             file in {key}.password_file)"
                        )
                    });
                    Ok(Some((
                        value,
                        Secret {
                            key: format!("{key}.password_env"),
                            from: var.clone(),
                            missing,
                        },
                    )))
                }
                (None, Some(f)) => {
                    let f = resolve(f);
                    let read = std::fs::read_to_string(&f)
                        .map(|s| s.trim_end_matches(['\n', '\r']).to_string());
                    let missing = read
                        .as_ref()
                        .err()
                        .map(|e| format!("cannot read {}: {e}", f.display()));
                    Ok(Some((
                        read.ok(),
                        Secret {
                            key: format!("{key}.password_file"),
                            from: f.display().to_string(),
                            missing,
                        },
                    )))
                }
                (None, None) => Ok(None),
            }
        };

        let mut imap_password = None;
        let mut smtp_password = None;
        let inbound = match (&raw.inbound.maildir, &raw.inbound.imap) {
            (Some(dir), None) => Inbound::Maildir(resolve(dir)),
            (None, Some(i)) => {
                let (password, source) = secret("inbound.imap", &i.password_env, &i.password_file)?
                    .ok_or_else(|| {
                        invalid(
                            "inbound.imap",
                            "needs password_env (name of an environment variable) or \
                                 password_file"
                                .into(),
                        )
                    })?;
                let password = password.unwrap_or_default();
                imap_password = Some(source);
                if i.fetch_batch == 0 {
                    return Err(invalid(
                        "inbound.imap.fetch_batch",
                        "must be at least 1".into(),
                    ));
                }
                Inbound::Imap(ImapSettings {
                    params: ImapParams {
                        host: i.host.clone(),
                        port: i.port.unwrap_or(match i.tls {
                            TlsMode::Tls => 993,
                            _ => 143,
                        }),
                        user: i.user.clone(),
                        password,
                        tls: i.tls,
                        ca_file: i.ca_file.as_deref().map(resolve),
                        mailbox: i.mailbox.clone(),
                    },
                    idle: i.idle,
                    poll_seconds: i.poll_seconds.max(1),
                    fetch_batch: i.fetch_batch,
                })
            }
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "inbound",
                    "give either `maildir:` or `imap:`, not both".into(),
                ))
            }
            (None, None) => {
                return Err(invalid(
                    "inbound",
                    "say where mail comes from: `maildir: DIR` or an `imap:` block".into(),
                ))
            }
        };
        let outbound = match (&raw.outbound.maildir, &raw.outbound.smtp) {
            (Some(dir), None) => Outbound::Maildir(resolve(dir)),
            (None, Some(s)) => {
                let password = match secret("outbound.smtp", &s.password_env, &s.password_file)? {
                    Some((value, source)) => {
                        smtp_password = Some(source);
                        Some(value.unwrap_or_default())
                    }
                    None => None,
                };
                if password.is_some() != s.user.is_some() {
                    return Err(invalid(
                        "outbound.smtp",
                        "user and password go together: give both or neither".into(),
                    ));
                }
                Outbound::Smtp(SmtpParams {
                    host: s.host.clone(),
                    port: s.port.unwrap_or(match s.tls {
                        TlsMode::Tls => 465,
                        _ => 587,
                    }),
                    user: s.user.clone(),
                    password,
                    tls: s.tls,
                    ca_file: s.ca_file.as_deref().map(resolve),
                    hello_name: s.hello_name.clone(),
                })
            }
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "outbound",
                    "give either `maildir:` or `smtp:`, not both".into(),
                ))
            }
            (None, None) => {
                return Err(invalid(
                    "outbound",
                    "say where mail goes: `maildir: DIR` or an `smtp:` block".into(),
                ))
            }
        };
        // Only `pbemd run` serves the webhook, so a missing secret is reported by
        // [`Config::require_run_secrets`], not here: `tick`, `gm` and the rest run without it.
        let mut webhook_unset = None;
        let webhook = match &raw.webhook {
            None => None,
            Some(w) => {
                if w.window_seconds <= 0 {
                    return Err(invalid("webhook.window_seconds", "must be positive".into()));
                }
                match env(&w.secret_env).filter(|s| !s.is_empty()) {
                    Some(secret) => Some(Webhook {
                        secret: secret.into_bytes(),
                        window_seconds: w.window_seconds,
                    }),
                    None => {
                        webhook_unset = Some(w.secret_env.clone());
                        None
                    }
                }
            }
        };
        if let Some(listen) = raw.http.as_ref().and_then(|h| h.listen.as_ref()) {
            if listen.parse::<std::net::SocketAddr>().is_err() {
                return Err(invalid(
                    "http.listen",
                    format!("`{listen}` is not an address:port such as 127.0.0.1:8025"),
                ));
            }
        }
        let http = http_settings(raw.http.as_ref()).map_err(|(k, m)| invalid(k, m))?;
        if let Some(h) = &raw.http {
            check_site_links(h).map_err(|(key, m)| invalid(key, m))?;
        }
        if raw.webhook.is_some() && raw.http.as_ref().and_then(|h| h.listen.as_ref()).is_none() {
            return Err(invalid(
                "http",
                "the webhook needs a listener: add `http: {listen: \"127.0.0.1:8025\"}`".into(),
            ));
        }
        let authserv_id = check_authserv_id(raw.sender_check, &raw.authserv_id)
            .map_err(|m| invalid("authserv_id", m))?;
        if raw.limits.max_mail_bytes < 1024 {
            return Err(invalid(
                "limits.max_mail_bytes",
                "must be at least 1024".into(),
            ));
        }
        for (key, v) in [
            (
                "season.max_absence_weekends",
                raw.season.max_absence_weekends,
            ),
            (
                "season.missed_before_replacement",
                raw.season.missed_before_replacement,
            ),
            ("season.max_pause_days", raw.season.max_pause_days),
            ("season.max_extend_hours", raw.season.max_extend_hours),
        ] {
            if v == 0 {
                return Err(invalid(key, "must be at least 1".into()));
            }
        }
        Ok(Config {
            path: path.to_path_buf(),
            game_name: raw.game.name,
            game_address: raw.game.address.to_lowercase(),
            gm_address: raw.game.gm_address.to_lowercase(),
            display_name: raw.game.display_name,
            seed: raw.game.seed,
            gm_language: raw.game.gm_language,
            database_url,
            scenario: resolve(&raw.scenario),
            schedule: raw.schedule.as_deref().map(resolve),
            inbound,
            outbound,
            webhook,
            webhook_unset,
            imap_password,
            smtp_password,
            http_public_url: raw.http.as_ref().and_then(|h| {
                h.public_url
                    .as_deref()
                    .map(|u| u.trim().trim_end_matches('/').to_string())
            }),
            http_link_days: raw.http.as_ref().map_or(14, |h| h.link_days),
            http_listen: raw.http.and_then(|h| h.listen),
            http,
            sender_check: raw.sender_check,
            authserv_id,
            limits: raw.limits,
            outbox: raw.outbox,
            forms: raw.forms,
            courier: raw.courier,
            season: raw.season,
            render: RenderSettings {
                font: resolve(&raw.render.font),
                map_pictures: raw.render.map_pictures,
                realms_listed: raw.render.realms_listed,
            },
        })
    }
}

/// The `http:` block's site settings, checked: a password hash must be a PHC string
/// of Argon2 (as `pbemd gm passwd` writes it), sessions last 1 to 720 hours.
fn http_settings(raw: Option<&RawHttp>) -> Result<HttpSettings, (&'static str, String)> {
    let Some(h) = raw else {
        return Ok(HttpSettings::default());
    };
    let hash = h
        .gm_password_hash
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    if let Some(hash) = hash {
        if !hash.starts_with("$argon2") {
            return Err((
                "http.gm_password_hash",
                "is not an Argon2 hash; set it with `pbemd gm passwd`, never by hand".into(),
            ));
        }
    }
    if !(1..=720).contains(&h.session_hours) {
        return Err(("http.session_hours", "must be 1 to 720 (hours)".into()));
    }
    Ok(HttpSettings {
        gm_password_hash: hash.map(str::to_string),
        session_hours: h.session_hours,
        secure_cookies: h.secure_cookies,
        trusted_proxies: h.trusted_proxies.clone(),
    })
}

/// `http.public_url` is an http(s) address without spaces; `http.link_days` 1–365.
fn check_site_links(h: &RawHttp) -> Result<(), (&'static str, String)> {
    if let Some(u) = h.public_url.as_deref().map(str::trim) {
        let rest = u
            .strip_prefix("https://")
            .or_else(|| u.strip_prefix("http://"))
            .unwrap_or("");
        if rest.trim_end_matches('/').is_empty()
            || u.chars()
                .any(|c| c.is_whitespace() || matches!(c, '"' | '<' | '>' | '?' | '#'))
        {
            return Err((
                "http.public_url",
                format!("`{u}` is not an address such as https://game.example.org"),
            ));
        }
    }
    if !(1..=365).contains(&h.link_days) {
        return Err(("http.link_days", "must be between 1 and 365".into()));
    }
    Ok(())
}

/// `authserv_id` is needed by the `dkim` modes: one word (a host name, usually), no
/// spaces, `;` or quotes.
fn check_authserv_id(mode: SenderCheck, id: &Option<String>) -> Result<Option<String>, String> {
    let id = id.as_deref().map(str::trim).filter(|s| !s.is_empty());
    match id {
        None if mode.uses_dkim() => Err(format!(
            "`sender_check: {}` needs the authserv-id of the game's receiving server, \
             e.g. `authserv_id: mx.example.org` (the first word of the Authentication-Results \
             headers it adds)",
            mode.as_str()
        )),
        Some(i)
            if i.len() > 255
                || i.chars().any(|c| {
                    c.is_whitespace() || c.is_control() || matches!(c, ';' | '"' | '(' | ')')
                }) =>
        {
            Err(format!(
                "`{i}` is not an authserv-id; write the server's name, e.g. mx.example.org"
            ))
        }
        id => Ok(id.map(str::to_ascii_lowercase)),
    }
}

fn looks_like_address(s: &str) -> bool {
    let mut parts = s.split('@');
    matches!((parts.next(), parts.next(), parts.next()), (Some(a), Some(d), None) if !a.is_empty() && d.contains('.') && !s.contains(char::is_whitespace))
}

/// `sqlite:FILE` paths are made relative to the config's folder; `postgres://` is kept.
fn resolve_database_url(url: &str, base: &Path) -> Result<String, String> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok(url.to_string());
    }
    let Some(rest) = url.strip_prefix("sqlite:") else {
        return Err(format!(
            "`{url}` is neither sqlite:FILE nor postgres://…; write e.g. `sqlite:pbemd.db`"
        ));
    };
    let rest = rest.trim_start_matches("//");
    let (file, query) = rest.split_once('?').unwrap_or((rest, ""));
    if file.is_empty() {
        return Err("sqlite needs a file name, e.g. `sqlite:pbemd.db`".into());
    }
    let p = Path::new(file);
    let p = if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    };
    let query = if query.is_empty() {
        "mode=rwc".to_string()
    } else {
        query.to_string()
    };
    Ok(format!("sqlite://{}?{query}", p.display()))
}

/// serde_yaml says "unknown field `x`, expected one of …": keep that, add the fix.
fn explain_yaml_error(e: &serde_yaml::Error) -> String {
    let msg = e.to_string();
    if msg.contains("unknown field") {
        format!("{msg} (remove or correct the key; deploy/pbemd.example.yaml lists every key)")
    } else if msg.contains("missing field") {
        format!("{msg} (add the key; deploy/pbemd.example.yaml shows its form)")
    } else {
        msg
    }
}

/// The config `pbemd new` writes for a fresh game directory.
pub fn new_game_config(game_name: &str) -> String {
    format!(
        "# pbemd game configuration — see deploy/pbemd.example.yaml for every key.\n\
game:\n  name: {game_name}\n  address: sl@game.test\n  gm_address: gm@game.test\n  seed: 1\n\
database: sqlite:pbemd.db\n\
scenario: scenario.yaml\n\
# schedule: schedule.yaml   # default: the rulebook's week in Europe/Stockholm\n\
inbound:\n  maildir: inbox\n\
outbound:\n  maildir: outbox\n\
sender_check: from-only\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::from_yaml(text, Path::new("/g/pbemd.yaml"), &|k| match k {
            "IMAP_PW" => Some("secret".into()),
            _ => None,
        })
    }

    const MINIMAL: &str = "game: {address: sl@game.test, gm_address: gm@game.test}\n\
database: sqlite:pbemd.db\nscenario: s.yaml\ninbound: {maildir: inbox}\noutbound: {maildir: outbox}\n";

    #[test]
    fn minimal_config_resolves_paths_against_its_folder() {
        let c = parse(MINIMAL).unwrap();
        assert_eq!(c.database_url, "sqlite:///g/pbemd.db?mode=rwc");
        assert_eq!(c.scenario, PathBuf::from("/g/s.yaml"));
        assert!(matches!(c.inbound, Inbound::Maildir(ref p) if p == Path::new("/g/inbox")));
    }

    #[test]
    fn unknown_key_is_named_with_the_fix() {
        let err = parse(&format!("{MINIMAL}colour: blue\n"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("colour"), "{err}");
        assert!(err.contains("remove or correct"), "{err}");
    }

    #[test]
    fn missing_key_is_named() {
        let err = parse("game: {address: sl@game.test, gm_address: gm@game.test}\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing field `database`"), "{err}");
    }

    #[test]
    fn imap_password_comes_from_the_environment() {
        let text = MINIMAL.replace(
            "inbound: {maildir: inbox}",
            "inbound: {imap: {host: 127.0.0.1, port: 1143, user: sl@game.test, password_env: IMAP_PW, tls: none}}",
        );
        let c = parse(&text).unwrap();
        let Inbound::Imap(ref i) = c.inbound else {
            panic!()
        };
        assert_eq!(i.params.password, "secret");
        assert_eq!(c.imap_password.as_ref().unwrap().from, "IMAP_PW");
        c.require_mail_secrets().unwrap();
        let missing = text.replace("IMAP_PW", "NOPE");
        let cfg = parse(&missing).expect("a command that reads no mail runs without it");
        let err = cfg.require_inbound_secret().unwrap_err().to_string();
        assert!(
            err.contains("inbound.imap.password_env") && err.contains("NOPE"),
            "{err}"
        );
        assert!(cfg.require_run_secrets().is_err());
        cfg.require_outbound_secret().unwrap();
    }

    #[test]
    fn an_unreadable_smtp_password_stops_sending_only() {
        let text = MINIMAL.replace(
            "outbound: {maildir: outbox}",
            "outbound: {smtp: {host: 127.0.0.1, user: sl@game.test, password_file: /nonexistent/pw}}",
        );
        let cfg = parse(&text).unwrap();
        let why = cfg.outbound_secret_missing().expect("missing");
        assert!(
            why.contains("outbound.smtp.password_file") && why.contains("/nonexistent/pw"),
            "{why}"
        );
        cfg.require_inbound_secret().unwrap();
        let both = text.replace(
            "password_file: /nonexistent/pw",
            "password_env: A, password_file: b",
        );
        assert!(parse(&both).unwrap_err().to_string().contains("not both"));
    }

    #[test]
    fn bad_address_and_database_are_refused_with_the_right_form() {
        let err = parse(&MINIMAL.replace("sl@game.test", "sl"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("game.address") && err.contains("name@domain"),
            "{err}"
        );
        let err = parse(&MINIMAL.replace("sqlite:pbemd.db", "mysql://x"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("key `database`"), "{err}");
    }

    #[test]
    fn webhook_without_secret_refuses_only_run() {
        let text = format!(
            "{MINIMAL}webhook: {{secret_env: HOOK}}\nhttp: {{listen: \"127.0.0.1:8025\"}}\n"
        );
        let cfg = parse(&text).expect("every command but run loads the config");
        assert!(cfg.webhook.is_none());
        let err = cfg.require_run_secrets().unwrap_err().to_string();
        assert!(
            err.contains("webhook.secret_env") && err.contains("HOOK"),
            "{err}"
        );
    }

    #[test]
    fn webhook_with_its_secret_is_ready_to_run() {
        let text = format!(
            "{MINIMAL}webhook: {{secret_env: IMAP_PW}}\nhttp: {{listen: \"127.0.0.1:8025\"}}\n"
        );
        let cfg = parse(&text).unwrap();
        assert_eq!(cfg.webhook.as_ref().unwrap().secret, b"secret");
        cfg.require_run_secrets().unwrap();
        parse(MINIMAL).unwrap().require_run_secrets().unwrap();
    }

    #[test]
    fn a_missing_form_stands_still_unless_the_game_reuses_last_rounds_orders() {
        assert_eq!(
            parse(MINIMAL).unwrap().forms.missing,
            MissingForm::StandStill
        );
        let c = parse(&format!("{MINIMAL}forms: {{missing: reuse-last}}\n")).unwrap();
        assert_eq!(c.forms.missing, MissingForm::ReuseLast);
        let err = parse(&format!("{MINIMAL}forms: {{missing: guess}}\n"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("guess"), "{err}");
    }

    #[test]
    fn an_early_form_is_kept_unless_the_game_refuses_it() {
        assert_eq!(parse(MINIMAL).unwrap().forms.early, EarlyForm::Keep);
        let c = parse(&format!("{MINIMAL}forms: {{early: refuse}}\n")).unwrap();
        assert_eq!(c.forms.early, EarlyForm::Refuse);
        let err = parse(&format!("{MINIMAL}forms: {{early: later}}\n"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("later"), "{err}");
    }

    #[test]
    fn the_map_font_defaults_to_dejavu_and_a_relative_path_is_the_games() {
        let c = parse(MINIMAL).unwrap();
        assert_eq!(c.render.font, Path::new(crate::render::map::DEFAULT_FONT));
        assert!(c.render.map_pictures);
        let c = parse(&format!(
            "{MINIMAL}render: {{font: fonts/x.ttf, map_pictures: false}}\n"
        ))
        .unwrap();
        assert_eq!(c.render.font, Path::new("/g/fonts/x.ttf"));
        assert!(!c.render.map_pictures);
        let err = parse(&format!("{MINIMAL}render: {{fonts: x}}\n"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("fonts"), "{err}");
    }

    #[test]
    fn a_form_names_up_to_a_hundred_other_realms_unless_the_game_sets_otherwise() {
        assert_eq!(parse(MINIMAL).unwrap().render.realms_listed, 100);
        let c = parse(&format!("{MINIMAL}render: {{realms_listed: 12}}\n")).unwrap();
        assert_eq!(c.render.realms_listed, 12);
        let err = parse(&format!("{MINIMAL}render: {{realms_listed: many}}\n"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("realms_listed"), "{err}");
    }

    #[test]
    fn season_settings_have_defaults_and_refuse_zero_weekends() {
        let c = parse(MINIMAL).unwrap();
        assert_eq!(
            (
                c.season.max_absence_weekends,
                c.season.max_absences,
                c.season.missed_before_replacement
            ),
            (3, 2, 2)
        );
        let c = parse(&format!("{MINIMAL}season: {{max_absences: 0}}\n")).unwrap();
        assert_eq!(c.season.max_absences, 0);
        let err = parse(&format!("{MINIMAL}season: {{max_absence_weekends: 0}}\n"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("season.max_absence_weekends"), "{err}");
    }

    #[test]
    fn the_gm_reads_swedish_unless_the_config_says_english() {
        assert_eq!(parse(MINIMAL).unwrap().gm_language, crate::game::Lang::Sv);
        let en = MINIMAL.replace(
            "gm_address: gm@game.test",
            "gm_address: gm@game.test, gm_language: en",
        );
        assert_eq!(parse(&en).unwrap().gm_language, crate::game::Lang::En);
        let err = parse(&MINIMAL.replace(
            "gm_address: gm@game.test",
            "gm_address: gm@game.test, gm_language: fi",
        ))
        .unwrap_err()
        .to_string();
        assert!(err.contains("fi"), "{err}");
    }

    #[test]
    fn new_game_config_is_valid() {
        parse(&new_game_config("demo")).unwrap();
    }

    #[test]
    fn http_site_settings_default_and_parse() {
        let c = parse(&format!("{MINIMAL}http: {{listen: \"127.0.0.1:8025\"}}\n")).unwrap();
        assert_eq!(c.http, HttpSettings::default());
        assert_eq!(c.http.session_hours, 12);
        assert_eq!(c.http.trusted_proxies.len(), 2);
        let c = parse(&format!(
            "{MINIMAL}http:\n  gm_password_hash: \"$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA\"\n  \
             session_hours: 2\n  secure_cookies: always\n  trusted_proxies: [10.0.0.1]\n"
        ))
        .unwrap();
        assert_eq!(c.http_listen, None, "a block without listen serves nothing");
        assert!(c.http.gm_password_hash.unwrap().starts_with("$argon2id$"));
        assert_eq!(c.http.session_hours, 2);
        assert_eq!(c.http.secure_cookies, SecureCookies::Always);
        assert_eq!(
            c.http.trusted_proxies,
            vec!["10.0.0.1".parse::<std::net::IpAddr>().unwrap()]
        );
    }

    #[test]
    fn a_plain_password_or_a_silly_session_length_is_refused() {
        let err = parse(&format!("{MINIMAL}http: {{gm_password_hash: hunter2}}\n"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("http.gm_password_hash") && err.contains("gm passwd"),
            "{err}"
        );
        assert!(!err.contains("hunter2"), "the value is not repeated: {err}");
        let err = parse(&format!("{MINIMAL}http: {{session_hours: 0}}\n"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("http.session_hours"), "{err}");
    }

    #[test]
    fn dkim_modes_need_an_authserv_id_and_token_mode_does_not() {
        for mode in ["dkim", "dkim-or-token"] {
            let err = parse(&format!("{MINIMAL}sender_check: {mode}\n"))
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("key `authserv_id`") && err.contains(mode),
                "{err}"
            );
        }
        let c = parse(&format!(
            "{MINIMAL}sender_check: dkim-or-token\nauthserv_id: MX.Game.test\n"
        ))
        .unwrap();
        assert_eq!(c.sender_check, SenderCheck::DkimOrToken);
        assert_eq!(c.authserv_id.as_deref(), Some("mx.game.test"));
        let c = parse(&format!("{MINIMAL}sender_check: token\n")).unwrap();
        assert!(c.sender_check.uses_token() && !c.sender_check.uses_dkim());
        let err = parse(&format!(
            "{MINIMAL}sender_check: dkim\nauthserv_id: \"mx; dkim=pass\"\n"
        ))
        .unwrap_err()
        .to_string();
        assert!(err.contains("is not an authserv-id"), "{err}");
    }
}
