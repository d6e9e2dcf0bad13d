//! Temporary compile shim; replaced by the real SMTP sender.
use super::imap::TlsMode;
use super::TransportError;
#[derive(Debug, Clone)]
pub struct SmtpParams {
    pub host: String,
    pub port: u16,
    pub user: Option<String>,
    pub password: Option<String>,
    pub tls: TlsMode,
    pub ca_file: Option<std::path::PathBuf>,
    pub hello_name: String,
}
pub struct SmtpSender {
    _p: SmtpParams,
}
impl SmtpSender {
    pub fn new(p: SmtpParams) -> SmtpSender {
        SmtpSender { _p: p }
    }
    pub async fn send_raw(
        &mut self,
        _f: &str,
        _t: &[String],
        _r: &[u8],
    ) -> Result<(), TransportError> {
        Err(TransportError::Protocol {
            action: "send".into(),
            reason: "shim".into(),
        })
    }
}
