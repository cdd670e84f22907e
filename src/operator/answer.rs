//! Operators' answers read up to a cap (`MOMO_OPERATOR_MAX_ANSWER_BYTES`): only the timeout
//! bounded them before, and an operator (or whatever answers in its place) that sends a
//! gigabyte must cost a refusal, not the process's memory.

use serde::de::DeserializeOwned;

use super::{BadAnswer, OperatorError};

/// The body of `answer`, at most `cap` bytes: a larger one is refused as
/// [`BadAnswer::TooLarge`] (nothing is settled on it, as on any answer we cannot take); a body
/// that breaks off is ambiguous.
pub async fn body(mut answer: reqwest::Response, cap: usize) -> Result<Vec<u8>, OperatorError> {
    let status = answer.status();
    let too_large = || OperatorError::bad_answer(BadAnswer::TooLarge, format!("an answer ({status}) over {cap} bytes"));
    if answer.content_length().is_some_and(|announced| announced > cap as u64) {
        return Err(too_large());
    }
    let mut body = Vec::new();
    while let Some(chunk) = answer
        .chunk()
        .await
        .map_err(|e| OperatorError::Ambiguous(format!("the answer ({status}) broke off: {e}")))?
    {
        if body.len() + chunk.len() > cap {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The body of `answer` (see [`body`]) read as `T`; `None` when it is not `T`'s JSON.
pub async fn json<T: DeserializeOwned>(
    answer: reqwest::Response,
    cap: usize,
) -> Result<Result<T, String>, OperatorError> {
    let body = body(answer, cap).await?;
    Ok(serde_json::from_slice(&body).map_err(|e| e.to_string()))
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// A server on 127.0.0.1 that answers every request with `head`, then writes `chunk` again
    /// and again (forever when `repeat` is `None`): a 1-GB answer costs it nothing to send.
    async fn server(head: &'static str, chunk: &'static [u8], repeat: Option<usize>) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let mut request = [0u8; 4096];
                    let _ = socket.read(&mut request).await;
                    let _ = socket.write_all(head.as_bytes()).await;
                    let mut sent = 0;
                    while repeat.is_none_or(|n| sent < n) {
                        if socket.write_all(chunk).await.is_err() {
                            break;
                        }
                        sent += 1;
                    }
                });
            }
        });
        url
    }

    async fn read(url: &str) -> Result<Vec<u8>, OperatorError> {
        let answer = reqwest::get(url).await.unwrap();
        body(answer, 64 * 1024).await
    }

    fn too_large(result: Result<Vec<u8>, OperatorError>) -> bool {
        matches!(
            result,
            Err(OperatorError::BadAnswer {
                kind: BadAnswer::TooLarge,
                ..
            })
        )
    }

    #[tokio::test]
    async fn an_answer_announced_over_the_cap_is_refused_unread() {
        let url = server(
            "HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\n",
            &[b'0'; 8192],
            None,
        )
        .await;
        assert!(too_large(read(&url).await));
    }

    #[tokio::test]
    async fn a_broken_or_endless_answer_is_refused() {
        let chunk = b"2000\r\n0000000000000000000000000000000000000000000000000000000000000000\r\n";
        // Each chunk claims 8 KiB but sends 64 bytes: a framing error the reader reports, or the cap.
        let url = server("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", chunk, None).await;
        assert!(read(&url).await.is_err());
        let url = server("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", &[b'0'; 8192], None).await;
        assert!(too_large(read(&url).await), "an unframed endless body");
    }

    #[tokio::test]
    async fn an_answer_within_the_cap_is_read_whole() {
        let url = server(
            "HTTP/1.1 200 OK\r\nContent-Length: 16384\r\n\r\n",
            &[b'0'; 8192],
            Some(2),
        )
        .await;
        assert_eq!(read(&url).await.unwrap().len(), 16_384);
    }
}
