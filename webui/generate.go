package webui

// The README's pictures (docs/screenshots) are made by the browser test,
// which fails when one of them is stale: regenerate them with
// 'go generate ./webui' (headless Chromium needed, as for that test).
//go:generate sh -c "RSCONFORM_SCREENSHOTS=$(cd ../docs/screenshots && pwd) go test -count=1 -run TestWebUI . -args -ginkgo.label-filter=browser"
