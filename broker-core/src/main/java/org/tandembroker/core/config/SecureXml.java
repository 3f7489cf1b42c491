package org.tandembroker.core.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.xml.sax.ErrorHandler;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

/**
 * Parses a configuration file with the JDK's DOM parser, refusing DTDs, external entities and XInclude, so a
 * configuration file can neither read other files nor expand entities without bound.
 * <p>Any failure is a one-line {@link ConfigException}: {@code file:line:column: malformed XML: reason}.
 */
final class SecureXml {

    private SecureXml() {
    }

    static Document parse(Path file) throws ConfigException {
        DocumentBuilder builder = newBuilder();
        try (InputStream in = Files.newInputStream(file)) {
            return builder.parse(in, file.toUri().toString());
        } catch (SAXParseException e) {
            throw new ConfigException(file + ":" + e.getLineNumber() + ":" + e.getColumnNumber()
                    + ": malformed XML: " + oneLine(e.getMessage()), e);
        } catch (SAXException e) {
            throw new ConfigException(file + ": malformed XML: " + oneLine(e.getMessage()), e);
        } catch (NoSuchFileException e) {
            throw new ConfigException(file + ": file not found", e);
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot read: " + oneLine(String.valueOf(e)), e);
        }
    }

    private static DocumentBuilder newBuilder() {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            factory.setFeature("http://xml.org/sax/features/external-general-entities", false);
            factory.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            factory.setXIncludeAware(false);
            factory.setExpandEntityReferences(false);
            factory.setNamespaceAware(false);
            factory.setIgnoringComments(true);
            DocumentBuilder builder = factory.newDocumentBuilder();
            // The default handler prints "[Fatal Error]" lines to stderr; the exception says it all.
            builder.setErrorHandler(new ErrorHandler() {
                @Override
                public void warning(SAXParseException e) {
                }

                @Override
                public void error(SAXParseException e) throws SAXException {
                    throw e;
                }

                @Override
                public void fatalError(SAXParseException e) throws SAXException {
                    throw e;
                }
            });
            return builder;
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the JDK's XML parser lacks a required security feature", e);
        }
    }

    static String oneLine(String text) {
        return text == null ? "" : text.replaceAll("\\s+", " ").trim();
    }
}
