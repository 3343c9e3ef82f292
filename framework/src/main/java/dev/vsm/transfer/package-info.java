/**
 * Moving volumes in and out of storages: {@code vsm import} (an image file converted into a new
 * volume), {@code vsm export} and {@code vsm import-stream} (pve's {@code raw+size} and
 * {@code qcow2+size} streams) and {@code vsm copy} (a volume to another storage). The plugins
 * say what they can do ({@code Storage.importImage}, {@code exportFormats}, {@code importFormats});
 * the classes here check the input, move the bytes, show progress and clean up after a failure.
 */
package dev.vsm.transfer;
