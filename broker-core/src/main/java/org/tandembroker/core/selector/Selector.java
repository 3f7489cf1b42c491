package org.tandembroker.core.selector;

/**
 * A parsed JMS message selector: the SQL-92 conditional subset of the JMS specification (comparisons, arithmetic,
 * {@code [NOT] BETWEEN}, {@code [NOT] IN}, {@code [NOT] LIKE ... [ESCAPE ...]}, {@code IS [NOT] NULL}, {@code AND},
 * {@code OR}, {@code NOT}) with three-valued logic: a message matches only when the selector is TRUE, never when it
 * is FALSE or UNKNOWN (an absent property, a type mismatch). Keywords are case-insensitive, identifiers are not.
 *
 * <p>Immutable and thread-safe once parsed.
 */
public final class Selector {
    private final String text;
    private final Expression expression;

    private Selector(String text, Expression expression) {
        this.text = text;
        this.expression = expression;
    }

    /**
     * Parses {@code text}.
     *
     * @throws SelectorException naming what is wrong and where (the character position, counted from 1)
     */
    public static Selector parse(String text) throws SelectorException {
        if (text == null || text.isBlank()) {
            throw new SelectorException("the selector is empty");
        }
        return new Selector(text, new SelectorParser(text).parse());
    }

    /** Whether the message {@code context} describes is selected (the selector evaluates to TRUE). */
    public boolean matches(SelectorContext context) {
        return expression.evaluate(context) == Boolean.TRUE;
    }

    /** The selector as written. */
    public String text() {
        return text;
    }

    @Override
    public String toString() {
        return text;
    }

    /** A node of the parsed selector; evaluates to a Boolean (null = UNKNOWN), a String, a Long or a Double. */
    interface Expression {
        Object evaluate(SelectorContext context);
    }
}
