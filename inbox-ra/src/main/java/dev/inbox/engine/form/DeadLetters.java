package dev.inbox.engine.form;

/** What the dead-letter table keeps of an error. */
final class DeadLetters {
    /** Long enough for a message and the head of a cause; short enough for any text column. */
    static final int MAX_ERROR = 2000;

    private DeadLetters() {}

    static String clip(String error) {
        String text = error == null ? "" : error;
        return text.length() <= MAX_ERROR ? text : text.substring(0, MAX_ERROR - 3) + "...";
    }
}
