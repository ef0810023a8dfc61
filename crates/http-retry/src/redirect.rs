//! Redirects for API clients. Provider keys travel in headers of their own (`x-api-key`,
//! `x-goog-api-key`, `X-Subscription-Token`, …) and reqwest strips only `Authorization` and
//! `Cookie` when a redirect leaves the origin, so a client that followed any redirect would
//! hand the key to whatever host a provider (or whoever answers in its name) points at. An API
//! client follows a redirect only within the origin it was sent to.

/// Hops an API client follows within one origin.
pub const MAX_REDIRECTS: usize = 5;

/// The redirect policy of every API client: follow within the first request's origin (scheme,
/// host and port), at most [`MAX_REDIRECTS`] times; a redirect elsewhere is returned as the
/// response it is (a 3xx the client reports), never followed.
pub fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        if attempt.previous().len() > MAX_REDIRECTS {
            return attempt.error("too many redirects");
        }
        let same = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if same {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

#[cfg(test)]
mod tests {
    use wiremock::matchers::path;
    use wiremock::{Mock, MockServer, ResponseTemplate};

    use super::*;

    #[tokio::test]
    async fn a_key_never_follows_a_redirect_to_another_origin() {
        let elsewhere = MockServer::start().await;
        Mock::given(path("/steal"))
            .respond_with(ResponseTemplate::new(200))
            .mount(&elsewhere)
            .await;
        let api = MockServer::start().await;
        Mock::given(path("/v1/search"))
            .respond_with(
                ResponseTemplate::new(307)
                    .insert_header("location", format!("{}/steal", elsewhere.uri())),
            )
            .mount(&api)
            .await;
        Mock::given(path("/v1/old"))
            .respond_with(ResponseTemplate::new(308).insert_header("location", "/v1/new"))
            .mount(&api)
            .await;
        Mock::given(path("/v1/new"))
            .respond_with(ResponseTemplate::new(200).set_body_string("moved within"))
            .mount(&api)
            .await;
        let client = reqwest::Client::builder()
            .redirect(same_origin_redirects())
            .build()
            .unwrap();
        let away = client
            .get(format!("{}/v1/search", api.uri()))
            .header("x-api-key", "secret")
            .send()
            .await
            .unwrap();
        assert_eq!(away.status(), 307, "returned, not followed");
        assert!(elsewhere.received_requests().await.unwrap().is_empty());
        let within = client
            .get(format!("{}/v1/old", api.uri()))
            .header("x-api-key", "secret")
            .send()
            .await
            .unwrap();
        assert_eq!(within.text().await.unwrap(), "moved within");
    }
}
