package dev.inbox.docs;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;

/**
 * Fails when a page of the site links to a file that is not there, or to an anchor its target page
 * does not have. Links that leave the site (a scheme such as {@code https:}) are not followed.
 */
public final class LinkCheck {
    private final Path site;
    private final Map<Path, Set<String>> anchors = new ConcurrentHashMap<>();

    LinkCheck(Path site) {
        this.site = site;
    }

    public static void main(String[] args) throws IOException {
        List<String> broken = new LinkCheck(Path.of(args[0])).broken();
        if (!broken.isEmpty()) {
            throw new IllegalStateException(broken.size() + " broken links in " + args[0] + ":\n  "
                    + String.join("\n  ", broken));
        }
        System.out.println("LinkCheck: every internal link of " + args[0] + " leads somewhere");
    }

    /** Each broken link as {@code page: href (why)}. */
    List<String> broken() throws IOException {
        if (!Files.isDirectory(site)) {
            return List.of("no site at " + site + ": build the pages first");
        }
        List<Path> pages;
        try (Stream<Path> files = Files.walk(site)) {
            pages = files.filter(p -> p.toString().endsWith(".html")).sorted().toList();
        }
        if (pages.isEmpty()) {
            return List.of("no page in " + site);
        }
        List<String> broken = new ArrayList<>();
        for (Path page : pages) {
            Document doc = Jsoup.parse(page.toFile(), "UTF-8");
            for (Element link : doc.select("a[href], img[src], link[href], script[src]")) {
                String href = link.hasAttr("href") ? link.attr("href") : link.attr("src");
                String problem = problem(page, href);
                if (problem != null) {
                    broken.add(site.relativize(page) + ": " + href + " (" + problem + ")");
                }
            }
        }
        return broken;
    }

    private String problem(Path page, String href) throws IOException {
        if (href.isEmpty()) {
            return "empty link";
        }
        URI uri;
        try {
            uri = new URI(href);
        } catch (java.net.URISyntaxException e) {
            return "not a valid link";
        }
        if (uri.getScheme() != null || href.startsWith("//")) {
            return null;
        }
        String path = uri.getPath();
        Path target = path == null || path.isEmpty() ? page : page.getParent().resolve(path).normalize();
        if (!target.startsWith(site)) {
            return "leads out of the site";
        }
        if (!Files.isRegularFile(target)) {
            return "no file " + site.relativize(target);
        }
        String fragment = uri.getFragment();
        if (fragment != null && !fragment.isEmpty() && target.toString().endsWith(".html")
                && !anchorsOf(target).contains(fragment)) {
            return "no anchor #" + fragment + " in " + site.relativize(target);
        }
        return null;
    }

    private Set<String> anchorsOf(Path page) throws IOException {
        Set<String> known = anchors.get(page);
        if (known == null) {
            Document doc = Jsoup.parse(page.toFile(), "UTF-8");
            known = Stream.concat(doc.select("[id]").stream().map(e -> e.id()),
                    doc.select("a[name]").stream().map(e -> e.attr("name"))).collect(Collectors.toSet());
            anchors.put(page, known);
        }
        return known;
    }
}
