package org.tandembroker.core.selector;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.tandembroker.core.selector.Selector.Expression;

/**
 * Recursive-descent parser of the JMS selector grammar, building {@link Expression} trees. Precedence, lowest
 * first: OR, AND, NOT, comparison (=, <>, <, <=, >, >=, BETWEEN, IN, LIKE, IS NULL), + and -, * and /, unary sign.
 * Literal operands are type-checked while parsing ({@code 'a' + 1} or {@code x LIKE 5} are refused); values of
 * identifiers are checked while evaluating (a mismatch is UNKNOWN). One instance parses one text, on one thread.
 */
final class SelectorParser {
    private static final Set<String> KEYWORDS = Set.of("AND", "OR", "NOT", "BETWEEN", "LIKE", "IN", "IS", "NULL",
            "ESCAPE", "TRUE", "FALSE");

    private enum Kind { IDENTIFIER, KEYWORD, STRING, LONG, DOUBLE, OPERATOR, END }

    private record Token(Kind kind, String text, Object value, int position) {
        boolean is(Kind k, String t) {
            return kind == k && text.equals(t);
        }
    }

    /** What a literal or a node is known to produce while parsing; ANY for identifiers and their combinations. */
    private enum Type { BOOLEAN, STRING, NUMBER, ANY }

    private record Node(Expression expression, Type type, boolean identifier) {
    }

    private final String text;
    private final List<Token> tokens;
    private int next;

    SelectorParser(String text) throws SelectorException {
        this.text = text;
        this.tokens = tokenize(text);
    }

    Expression parse() throws SelectorException {
        Node node = or();
        Token end = peek();
        if (end.kind != Kind.END) {
            throw error(end, "unexpected '" + end.text + "'");
        }
        if (node.type != Type.BOOLEAN && !(node.type == Type.ANY && node.identifier)) {
            throw error(tokens.get(0), "the selector is not a condition (it yields a "
                    + node.type.name().toLowerCase(Locale.ROOT) + ")");
        }
        return node.expression;
    }

    // ---- grammar

    private Node or() throws SelectorException {
        Node left = and();
        while (acceptKeyword("OR")) {
            Token at = previous();
            Expression l = bool(left, at);
            Expression r = bool(and(), at);
            left = new Node(c -> {
                Object a = l.evaluate(c);
                if (a == Boolean.TRUE) {
                    return Boolean.TRUE;
                }
                Object b = r.evaluate(c);
                if (b == Boolean.TRUE) {
                    return Boolean.TRUE;
                }
                return a == Boolean.FALSE && b == Boolean.FALSE ? Boolean.FALSE : null;
            }, Type.BOOLEAN, false);
        }
        return left;
    }

    private Node and() throws SelectorException {
        Node left = not();
        while (acceptKeyword("AND")) {
            Token at = previous();
            Expression l = bool(left, at);
            Expression r = bool(not(), at);
            left = new Node(c -> {
                Object a = l.evaluate(c);
                if (a == Boolean.FALSE) {
                    return Boolean.FALSE;
                }
                Object b = r.evaluate(c);
                if (b == Boolean.FALSE) {
                    return Boolean.FALSE;
                }
                return a == Boolean.TRUE && b == Boolean.TRUE ? Boolean.TRUE : null;
            }, Type.BOOLEAN, false);
        }
        return left;
    }

    private Node not() throws SelectorException {
        if (acceptKeyword("NOT")) {
            Token at = previous();
            Expression operand = bool(not(), at);
            return new Node(c -> {
                Object v = operand.evaluate(c);
                return v == null ? null : v == Boolean.TRUE ? Boolean.FALSE : Boolean.TRUE;
            }, Type.BOOLEAN, false);
        }
        return comparison();
    }

    private Node comparison() throws SelectorException {
        Node left = additive();
        Token t = peek();
        if (t.kind == Kind.OPERATOR && Set.of("=", "<>", "<", "<=", ">", ">=").contains(t.text)) {
            next++;
            Node right = additive();
            checkComparable(left, right, t);
            return new Node(compare(t.text, left.expression, right.expression), Type.BOOLEAN, false);
        }
        if (acceptKeyword("IS")) {
            boolean negated = acceptKeyword("NOT");
            expectKeyword("NULL");
            Expression operand = left.expression;
            return new Node(c -> (operand.evaluate(c) == null) != negated, Type.BOOLEAN, false);
        }
        boolean negated = false;
        if (t.is(Kind.KEYWORD, "NOT")) {
            Token after = tokens.get(next + 1);
            if (after.kind == Kind.KEYWORD && Set.of("BETWEEN", "IN", "LIKE").contains(after.text)) {
                next++;
                negated = true;
            }
        }
        Expression result;
        if (acceptKeyword("BETWEEN")) {
            Token at = previous();
            Node low = additive();
            expectKeyword("AND");
            Node high = additive();
            requireNumeric(left, at);
            requireNumeric(low, at);
            requireNumeric(high, at);
            Expression atLeast = compare(">=", left.expression, low.expression);
            Expression atMost = compare("<=", left.expression, high.expression);
            result = c -> {
                Object a = atLeast.evaluate(c);
                Object b = atMost.evaluate(c);
                if (a == Boolean.FALSE || b == Boolean.FALSE) {
                    return Boolean.FALSE;
                }
                return a == Boolean.TRUE && b == Boolean.TRUE ? Boolean.TRUE : null;
            };
        } else if (acceptKeyword("IN")) {
            result = in(left, previous());
        } else if (acceptKeyword("LIKE")) {
            result = like(left, previous());
        } else {
            if (negated) {
                throw error(peek(), "NOT here must be followed by BETWEEN, IN or LIKE");
            }
            return left;
        }
        if (!negated) {
            return new Node(result, Type.BOOLEAN, false);
        }
        Expression positive = result;
        return new Node(c -> {
            Object v = positive.evaluate(c);
            return v == null ? null : v == Boolean.TRUE ? Boolean.FALSE : Boolean.TRUE;
        }, Type.BOOLEAN, false);
    }

    private Expression in(Node left, Token at) throws SelectorException {
        if (!left.identifier) {
            throw error(at, "IN must follow an identifier");
        }
        expectOperator("(");
        List<Object> values = new ArrayList<>();
        do {
            Token literal = peek();
            if (literal.kind == Kind.STRING || literal.kind == Kind.LONG || literal.kind == Kind.DOUBLE) {
                next++;
                values.add(literal.value);
            } else {
                throw error(literal, "IN takes a list of literals, not '" + literal.text + "'");
            }
        } while (acceptOperator(","));
        expectOperator(")");
        Expression operand = left.expression;
        return c -> {
            Object v = operand.evaluate(c);
            if (v == null) {
                return null;
            }
            boolean typed = false;
            for (Object candidate : values) {
                Boolean equal = equal(v, candidate);
                if (equal == Boolean.TRUE) {
                    return Boolean.TRUE;
                }
                typed |= equal != null;
            }
            return typed ? Boolean.FALSE : null;
        };
    }

    private Expression like(Node left, Token at) throws SelectorException {
        if (!left.identifier) {
            throw error(at, "LIKE must follow an identifier");
        }
        Token patternToken = peek();
        if (patternToken.kind != Kind.STRING) {
            throw error(patternToken, "LIKE takes a string literal pattern, not '" + patternToken.text + "'");
        }
        next++;
        Character escape = null;
        if (acceptKeyword("ESCAPE")) {
            Token escapeToken = peek();
            if (escapeToken.kind != Kind.STRING || ((String) escapeToken.value).length() != 1) {
                throw error(escapeToken, "ESCAPE takes a string literal of one character");
            }
            next++;
            escape = ((String) escapeToken.value).charAt(0);
        }
        Pattern pattern = likePattern((String) patternToken.value, escape, patternToken);
        Expression operand = left.expression;
        return c -> {
            Object v = operand.evaluate(c);
            return v instanceof String s ? pattern.matcher(s).matches() : null;
        };
    }

    private Pattern likePattern(String like, Character escape, Token at) throws SelectorException {
        StringBuilder regex = new StringBuilder(like.length() + 8);
        for (int i = 0; i < like.length(); i++) {
            char ch = like.charAt(i);
            if (escape != null && ch == escape) {
                if (i + 1 >= like.length()) {
                    throw error(at, "the LIKE pattern ends with its escape character");
                }
                regex.append(Pattern.quote(String.valueOf(like.charAt(++i))));
            } else if (ch == '%') {
                regex.append(".*");
            } else if (ch == '_') {
                regex.append('.');
            } else {
                regex.append(Pattern.quote(String.valueOf(ch)));
            }
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }

    private Node additive() throws SelectorException {
        Node left = multiplicative();
        while (peek().kind == Kind.OPERATOR && (peek().text.equals("+") || peek().text.equals("-"))) {
            Token op = tokens.get(next++);
            Node right = multiplicative();
            left = arithmetic(op, left, right);
        }
        return left;
    }

    private Node multiplicative() throws SelectorException {
        Node left = unary();
        while (peek().kind == Kind.OPERATOR && (peek().text.equals("*") || peek().text.equals("/"))) {
            Token op = tokens.get(next++);
            Node right = unary();
            left = arithmetic(op, left, right);
        }
        return left;
    }

    private Node unary() throws SelectorException {
        Token t = peek();
        if (t.kind == Kind.OPERATOR && (t.text.equals("-") || t.text.equals("+"))) {
            next++;
            Token operandToken = peek();
            if (t.text.equals("-") && (operandToken.kind == Kind.LONG || operandToken.kind == Kind.DOUBLE)) {
                next++;
                Object negative = operandToken.value instanceof Long l
                        ? (Object) (-l) : (Object) (-(Double) operandToken.value);
                return new Node(c -> negative, Type.NUMBER, false);
            }
            Node operand = unary();
            requireNumeric(operand, t);
            if (t.text.equals("+")) {
                return new Node(operand.expression, Type.NUMBER, false);
            }
            Expression e = operand.expression;
            return new Node(c -> {
                Object v = numeric(e.evaluate(c));
                return v instanceof Long l ? (Object) (-l) : v instanceof Double d ? (Object) (-d) : null;
            }, Type.NUMBER, false);
        }
        return primary();
    }

    private Node primary() throws SelectorException {
        Token t = peek();
        next++;
        switch (t.kind) {
            case STRING:
                return literal(t.value, Type.STRING);
            case LONG:
            case DOUBLE:
                return literal(t.value, Type.NUMBER);
            case IDENTIFIER:
                String name = t.text;
                return new Node(c -> normalize(c.value(name)), Type.ANY, true);
            case KEYWORD:
                if (t.text.equals("TRUE") || t.text.equals("FALSE")) {
                    return literal(Boolean.valueOf(t.text.equals("TRUE")), Type.BOOLEAN);
                }
                if (t.text.equals("NULL")) {
                    return new Node(c -> null, Type.ANY, false);
                }
                throw error(t, "unexpected keyword " + t.text);
            case OPERATOR:
                if (t.text.equals("(")) {
                    Node inner = or();
                    expectOperator(")");
                    return new Node(inner.expression, inner.type, inner.identifier);
                }
                throw error(t, "unexpected '" + t.text + "'");
            default:
                throw error(t, "the selector ends too early");
        }
    }

    private static Node literal(Object value, Type type) {
        return new Node(c -> value, type, false);
    }

    // ---- type checks while parsing

    private Expression bool(Node node, Token at) throws SelectorException {
        if (node.type == Type.STRING || node.type == Type.NUMBER) {
            throw error(at, at.text + " needs conditions on both sides, not a "
                    + node.type.name().toLowerCase(Locale.ROOT));
        }
        Expression e = node.expression;
        return node.type == Type.BOOLEAN ? e : c -> e.evaluate(c) instanceof Boolean b ? b : null;
    }

    private void requireNumeric(Node node, Token at) throws SelectorException {
        if (node.type == Type.STRING || node.type == Type.BOOLEAN) {
            throw error(at, "'" + at.text + "' needs numbers, not a " + node.type.name().toLowerCase(Locale.ROOT));
        }
    }

    private void checkComparable(Node left, Node right, Token op) throws SelectorException {
        if (left.type != Type.ANY && right.type != Type.ANY && left.type != right.type) {
            throw error(op, "cannot compare a " + left.type.name().toLowerCase(Locale.ROOT) + " with a "
                    + right.type.name().toLowerCase(Locale.ROOT));
        }
        Type known = left.type != Type.ANY ? left.type : right.type;
        if ((known == Type.STRING || known == Type.BOOLEAN) && !op.text.equals("=") && !op.text.equals("<>")) {
            throw error(op, known.name().toLowerCase(Locale.ROOT) + "s compare only with = and <>");
        }
    }

    private Node arithmetic(Token op, Node left, Node right) throws SelectorException {
        requireNumeric(left, op);
        requireNumeric(right, op);
        Expression l = left.expression;
        Expression r = right.expression;
        char operator = op.text.charAt(0);
        return new Node(c -> {
            Object a = numeric(l.evaluate(c));
            Object b = numeric(r.evaluate(c));
            if (a == null || b == null) {
                return null;
            }
            if (a instanceof Long x && b instanceof Long y) {
                return switch (operator) {
                    case '+' -> x + y;
                    case '-' -> x - y;
                    case '*' -> x * y;
                    default -> y == 0 ? null : (Object) (x / y);
                };
            }
            double x = ((Number) a).doubleValue();
            double y = ((Number) b).doubleValue();
            return switch (operator) {
                case '+' -> x + y;
                case '-' -> x - y;
                case '*' -> x * y;
                default -> x / y;
            };
        }, Type.NUMBER, false);
    }

    // ---- evaluation

    /** Identifier values as the evaluator uses them: integral numbers as Long, Float as Double, others unchanged. */
    private static Object normalize(Object value) {
        if (value instanceof Long || value instanceof String || value instanceof Boolean || value instanceof Double) {
            return value;
        }
        if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        if (value instanceof Float f) {
            return f.doubleValue();
        }
        return null;
    }

    private static Object numeric(Object value) {
        return value instanceof Long || value instanceof Double ? value : null;
    }

    private static Expression compare(String op, Expression left, Expression right) {
        return switch (op) {
            case "=" -> c -> equal(left.evaluate(c), right.evaluate(c));
            case "<>" -> c -> {
                Boolean equal = equal(left.evaluate(c), right.evaluate(c));
                return equal == null ? null : !equal;
            };
            default -> c -> {
                Object a = numeric(left.evaluate(c));
                Object b = numeric(right.evaluate(c));
                if (a == null || b == null) {
                    return null;
                }
                int order = a instanceof Long x && b instanceof Long y ? Long.compare(x, y)
                        : Double.compare(((Number) a).doubleValue(), ((Number) b).doubleValue());
                return switch (op) {
                    case "<" -> order < 0;
                    case "<=" -> order <= 0;
                    case ">" -> order > 0;
                    default -> order >= 0;
                };
            };
        };
    }

    /** Equality with three-valued logic: null when either side is absent or the types differ. */
    private static Boolean equal(Object a, Object b) {
        if (a == null || b == null) {
            return null;
        }
        if (a instanceof Long x && b instanceof Long y) {
            return x.longValue() == y.longValue();
        }
        if (a instanceof Number x && b instanceof Number y) {
            return x.doubleValue() == y.doubleValue();
        }
        if (a.getClass() != b.getClass()) {
            return null;
        }
        return a.equals(b);
    }

    // ---- tokens

    private Token peek() {
        return tokens.get(next);
    }

    private Token previous() {
        return tokens.get(next - 1);
    }

    private boolean acceptKeyword(String keyword) {
        if (peek().is(Kind.KEYWORD, keyword)) {
            next++;
            return true;
        }
        return false;
    }

    private void expectKeyword(String keyword) throws SelectorException {
        if (!acceptKeyword(keyword)) {
            throw error(peek(), "expected " + keyword + ", found " + describe(peek()));
        }
    }

    private boolean acceptOperator(String operator) {
        if (peek().is(Kind.OPERATOR, operator)) {
            next++;
            return true;
        }
        return false;
    }

    private void expectOperator(String operator) throws SelectorException {
        if (!acceptOperator(operator)) {
            throw error(peek(), "expected '" + operator + "', found " + describe(peek()));
        }
    }

    private static String describe(Token t) {
        return t.kind == Kind.END ? "the end" : "'" + t.text + "'";
    }

    private SelectorException error(Token at, String problem) {
        return new SelectorException("invalid selector \"" + text + "\": " + problem + " at position "
                + (at.position + 1));
    }

    private static List<Token> tokenize(String text) throws SelectorException {
        List<Token> tokens = new ArrayList<>();
        int i = 0;
        int n = text.length();
        while (i < n) {
            char ch = text.charAt(i);
            if (Character.isWhitespace(ch)) {
                i++;
            } else if (ch == '\'') {
                StringBuilder value = new StringBuilder();
                int start = i++;
                while (true) {
                    if (i >= n) {
                        throw new SelectorException("invalid selector \"" + text
                                + "\": the string literal at position " + (start + 1) + " is not closed");
                    }
                    char c = text.charAt(i++);
                    if (c == '\'') {
                        if (i < n && text.charAt(i) == '\'') {
                            value.append('\'');
                            i++;
                        } else {
                            break;
                        }
                    } else {
                        value.append(c);
                    }
                }
                tokens.add(new Token(Kind.STRING, text.substring(start, i), value.toString(), start));
            } else if (Character.isDigit(ch) || (ch == '.' && i + 1 < n && Character.isDigit(text.charAt(i + 1)))) {
                int start = i;
                i = numberEnd(text, i);
                tokens.add(number(text, text.substring(start, i), start));
            } else if (Character.isJavaIdentifierStart(ch)) {
                int start = i;
                while (i < n && Character.isJavaIdentifierPart(text.charAt(i))) {
                    i++;
                }
                String word = text.substring(start, i);
                String upper = word.toUpperCase(Locale.ROOT);
                tokens.add(KEYWORDS.contains(upper) ? new Token(Kind.KEYWORD, upper, null, start)
                        : new Token(Kind.IDENTIFIER, word, null, start));
            } else {
                int start = i;
                String op;
                if ((ch == '<' || ch == '>') && i + 1 < n && text.charAt(i + 1) == '=') {
                    op = text.substring(i, i + 2);
                } else if (ch == '<' && i + 1 < n && text.charAt(i + 1) == '>') {
                    op = "<>";
                } else if ("=<>+-*/(),".indexOf(ch) >= 0) {
                    op = String.valueOf(ch);
                } else {
                    throw new SelectorException("invalid selector \"" + text + "\": unexpected character '" + ch
                            + "' at position " + (start + 1));
                }
                i += op.length();
                tokens.add(new Token(Kind.OPERATOR, op, null, start));
            }
        }
        tokens.add(new Token(Kind.END, "", null, n));
        return tokens;
    }

    private static int numberEnd(String text, int i) {
        int n = text.length();
        if (text.startsWith("0x", i) || text.startsWith("0X", i)) {
            i += 2;
            while (i < n && Character.digit(text.charAt(i), 16) >= 0) {
                i++;
            }
            return i < n && (text.charAt(i) == 'l' || text.charAt(i) == 'L') ? i + 1 : i;
        }
        while (i < n && Character.isDigit(text.charAt(i))) {
            i++;
        }
        if (i < n && text.charAt(i) == '.') {
            i++;
            while (i < n && Character.isDigit(text.charAt(i))) {
                i++;
            }
        }
        if (i < n && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
            int exponent = i + 1;
            if (exponent < n && (text.charAt(exponent) == '+' || text.charAt(exponent) == '-')) {
                exponent++;
            }
            if (exponent < n && Character.isDigit(text.charAt(exponent))) {
                i = exponent;
                while (i < n && Character.isDigit(text.charAt(i))) {
                    i++;
                }
            }
        }
        if (i < n && "lLfFdD".indexOf(text.charAt(i)) >= 0) {
            i++;
        }
        return i;
    }

    private static Token number(String text, String literal, int position) throws SelectorException {
        try {
            String digits = literal;
            char last = literal.charAt(literal.length() - 1);
            boolean hex = literal.startsWith("0x") || literal.startsWith("0X");
            if (last == 'l' || last == 'L') {
                digits = literal.substring(0, literal.length() - 1);
            }
            if (hex) {
                return new Token(Kind.LONG, literal, Long.parseLong(digits.substring(2), 16), position);
            }
            boolean approximate = digits.indexOf('.') >= 0 || digits.indexOf('e') >= 0 || digits.indexOf('E') >= 0
                    || "fFdD".indexOf(last) >= 0;
            if (approximate) {
                return new Token(Kind.DOUBLE, literal, Double.parseDouble(digits), position);
            }
            return new Token(Kind.LONG, literal, Long.parseLong(digits), position);
        } catch (NumberFormatException e) {
            throw new SelectorException("invalid selector \"" + text + "\": the number '" + literal
                    + "' at position " + (position + 1) + " is out of range or malformed");
        }
    }
}
