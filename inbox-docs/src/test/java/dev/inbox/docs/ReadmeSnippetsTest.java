package dev.inbox.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * README's code is taken from compiled and tested files: each Java block stands, line for line,
 * in a source of the examples, and each XML block's lines stand in that order in the example
 * project's POM or its server configuration.
 */
class ReadmeSnippetsTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern BLOCK = Pattern.compile("```(java|xml)\n(.*?)```", Pattern.DOTALL);

    @Test
    void everyJavaBlockIsPartOfACompiledExample() throws IOException {
        List<List<String>> sources = new ArrayList<>();
        try (Stream<Path> files = Stream.concat(Files.walk(Path.of("src/main/java")), Files.walk(Path.of("src/test/java")))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                sources.add(lines(Files.readString(file)));
            }
        }
        List<String> blocks = blocks("java");
        assertThat(blocks).hasSizeGreaterThanOrEqualTo(3);
        for (String block : blocks) {
            List<String> snippet = lines(block);
            assertThat(sources.stream().anyMatch(source -> Collections.indexOfSubList(source, snippet) >= 0))
                    .as("README's Java block is not in inbox-docs' examples:%n%s", block).isTrue();
        }
    }

    @Test
    void everyXmlBlockIsPartOfTheExampleProject() throws IOException {
        List<List<String>> files = List.of(lines(Files.readString(Path.of("src/example/pom.xml"))),
                lines(Files.readString(Path.of("src/main/liberty/config/server.xml"))));
        List<String> blocks = blocks("xml");
        assertThat(blocks).hasSizeGreaterThanOrEqualTo(2);
        for (String block : blocks) {
            List<String> snippet = lines(block);
            assertThat(files.stream().anyMatch(file -> inOrder(file, snippet)))
                    .as("README's XML block is not in the example project (src/example/pom.xml, server.xml):%n%s", block)
                    .isTrue();
        }
    }

    private static List<String> blocks(String language) throws IOException {
        Matcher m = BLOCK.matcher(Files.readString(ROOT.resolve("README.md")));
        List<String> blocks = new ArrayList<>();
        while (m.find()) {
            if (m.group(1).equals(language)) {
                blocks.add(m.group(2));
            }
        }
        return blocks;
    }

    /** The lines that carry code, trimmed: indentation and blank lines differ between a snippet and its file. */
    private static List<String> lines(String text) {
        return text.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    }

    private static boolean inOrder(List<String> file, List<String> snippet) {
        int at = 0;
        for (String line : snippet) {
            while (at < file.size() && !file.get(at).equals(line)) {
                at++;
            }
            if (at == file.size()) {
                return false;
            }
            at++;
        }
        return true;
    }
}
