// Chromium comes from Debian (/usr/bin/chromium); puppeteer must not download its own.
module.exports = { skipDownload: true }
