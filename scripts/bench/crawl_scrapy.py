"""Scrapy crawling the crawl benchmark's site (make bench, tests/src/bin/crawl_bench.rs): a
SitemapSpider that parses each page's title and main text and writes JSON lines, robots.txt
obeyed, politeness off, the same number of requests in flight as kerai. Prints one JSON line:
pages and seconds.

    python crawl_scrapy.py BASE_URL CONCURRENCY OUT.jsonl
"""
import json
import sys
import time

from scrapy.crawler import CrawlerProcess
from scrapy.spiders import SitemapSpider


class BenchSpider(SitemapSpider):
    name = "kerai-bench"

    def parse(self, response):
        yield {
            "url": response.url,
            "title": response.css("title::text").get(),
            "text": " ".join(t.strip() for t in response.css("main *::text").getall() if t.strip()),
        }


def main():
    base, concurrency, out = sys.argv[1].rstrip("/"), int(sys.argv[2]), sys.argv[3]
    process = CrawlerProcess(settings={
        "LOG_LEVEL": "WARNING",
        "ROBOTSTXT_OBEY": True,
        "CONCURRENT_REQUESTS": concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": concurrency,
        "DOWNLOAD_DELAY": 0,
        "AUTOTHROTTLE_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "FEEDS": {out: {"format": "jsonlines", "overwrite": True}},
    })
    crawler = process.create_crawler(BenchSpider)
    started = time.monotonic()
    process.crawl(crawler, sitemap_urls=[base + "/sitemap.xml"])
    process.start()
    stats = crawler.stats.get_stats()
    print(json.dumps({"pages": stats.get("item_scraped_count", 0),
                      "seconds": round(time.monotonic() - started, 3)}))


if __name__ == "__main__":
    main()
